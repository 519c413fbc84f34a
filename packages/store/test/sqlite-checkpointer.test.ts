import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../src/index';

describe('SQLite checkpointer', () => {
  it('moves committed WAL pages into the database on its own thread, without losing a row', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentlane-store-ckpt-'));
    const path = join(dir, 'store.db');
    const store = createSqliteStore({ path });
    try {
      await store.migrate();
      await store.createThread({ threadId: 't', engine: 'e', title: null, workDir: null, metadata: {} });
      const { run } = await store.createRun({ threadId: 't', prompt: 'p' });
      const at = new Date().toISOString();
      for (let i = 0; i < 20; i++) {
        await store.appendFrames(
          run.runId,
          Array.from({ length: 100 }, (_, k) => ({ receivedAt: at, frame: { i, k, pad: 'x'.repeat(200) } })),
        );
      }
      // A PASSIVE checkpoint from outside reports what is still only in the WAL: the worker's passes leave
      // nothing behind once the writer is quiet (bounded wait, no timing asserted).
      const probe = new Database(path);
      let left = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 100 && left > 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        // The probe's own pass would also copy pages; read the WAL-index state without checkpointing instead.
        const [row] = probe.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
        left = row ? row.log - row.checkpointed : 0;
      }
      probe.close();
      expect(left).toBe(0);
      expect(await store.readFrames(run.runId)).toHaveLength(2000);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
