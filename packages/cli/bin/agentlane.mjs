#!/usr/bin/env node
// The `agentlane` command: TypeScript sources run through tsx (no build step for Node packages).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
