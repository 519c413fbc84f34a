import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { runKillCycles } from '../src/index';
import { CYCLES, expectClean, LEASE, TIMEOUT_MS } from './support/kill-cycles';

// One file per backend, so that the two kill-cycle runs can go to two test workers side by side.
describe('kill cycles on SQLite: SIGKILL and start again while runs stream', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-kill-cycles-db-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    `SQLite, one server: ${CYCLES} cycles, every subscriber equals a fresh read, every run settled`,
    async () => {
      expectClean(
        await runKillCycles({ db: join(dir, 'agentlane.db'), servers: 1, cycles: CYCLES, ...LEASE }),
      );
    },
    TIMEOUT_MS,
  );
});
