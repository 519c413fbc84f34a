#!/usr/bin/env node
// `npm test`: vitest, then the Python runtime's suite (scripts/test-python.mjs) so that pytest's summary
// line is printed last. Arguments (`npm test -- packages/x/test/y.test.ts`) go to vitest only, and then
// the Python suite is left out: a filtered run is about those files.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const vitest = spawnSync('npx', ['vitest', 'run', ...args], { stdio: 'inherit' });
if (vitest.status !== 0) process.exit(vitest.status ?? 1);
if (args.length > 0) {
  console.log('python suite: not run (vitest was given a filter; run it with `npm run test:python`)');
  process.exit(0);
}
const python = spawnSync(process.execPath, [join(here, 'test-python.mjs')], { stdio: 'inherit' });
process.exit(python.status ?? 1);
