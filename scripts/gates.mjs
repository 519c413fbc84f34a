#!/usr/bin/env node
// Runs every CI gate in scripts/gates/ (one file per gate); fails when any gate fails.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'gates');
const gates = readdirSync(dir)
  .filter((f) => /\.(mjs|ts)$/.test(f))
  .sort();
let failed = 0;
for (const gate of gates) {
  // .ts gates run from the sources (tsx, and the workspace packages' agentlane-source export, not dist/).
  const args = gate.endsWith('.ts')
    ? ['--conditions=agentlane-source', '--import', 'tsx', join(dir, gate)]
    : [join(dir, gate)];
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  const ok = result.status === 0;
  console.log(`gate ${gate}: ${ok ? 'passed' : 'FAILED'}`);
  if (!ok) failed++;
}
console.log(`${gates.length - failed} gates passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
