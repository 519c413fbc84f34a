#!/usr/bin/env node
// Runs the Python runtime's suite (python/tests) after vitest, so `npm test` covers both runtimes and
// pytest's summary line is the last thing printed. Without python3 + pytest it skips with the reason,
// except under CI=true where that is a failure (the same rule as the PostgreSQL suites).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const python = process.env.PYTHON ?? 'python3';
const inCi = process.env.CI === 'true';

const probe = spawnSync(python, ['-c', 'import pytest, jsonschema'], { encoding: 'utf8' });
if (probe.error || probe.status !== 0) {
  const reason = probe.error
    ? `${python} not found`
    : `${python} lacks pytest or jsonschema: ${probe.stderr.trim().split('\n').pop()}`;
  if (inCi) {
    console.error(`python suite: FAILED, required under CI=true (${reason})`);
    process.exit(1);
  }
  console.log(`python suite: skipped (${reason})`);
  process.exit(0);
}

const result = spawnSync(python, ['-m', 'pytest', ...process.argv.slice(2)], {
  cwd: join(root, 'python'),
  stdio: 'inherit',
  env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
});
process.exit(result.status ?? 1);
