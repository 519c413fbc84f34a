#!/usr/bin/env node
// The `agentlane` command: the compiled JavaScript in ../dist (tsc -b; no TypeScript loader at run time).
// In a source checkout that was never built (a fresh clone after `npm ci`) it builds once first; after
// editing the sources run `npm run build` (or `npm start`, which always does).
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  const checkoutBuild = new URL('../../../scripts/build.mjs', import.meta.url);
  if (!existsSync(checkoutBuild)) {
    console.error('agentlane: the compiled CLI (dist/main.js) is missing from this install');
    process.exit(1);
  }
  console.error('agentlane: building the packages (tsc -b, first run)…');
  const { build } = await import(checkoutBuild.href);
  if (!build().ok) process.exit(1);
}
await import(main.href);
