#!/usr/bin/env node
// `npm start`: until the server lands, say honestly what agentlane can do yet.
console.log('agentlane: the server is not built yet. `npm test` runs what exists.');
