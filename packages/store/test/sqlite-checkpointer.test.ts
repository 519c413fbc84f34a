import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../src/index';
import { startCheckpointer } from '../src/sqlite/checkpointer';
import { walFile } from './helpers/wal-file';

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

  it('lets a writer that commits every few ms restart the WAL instead of growing it', async () => {
    const { path, writer, remove } = await walFile(
      'trickle.db',
      'CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)',
    );
    writer.pragma('synchronous = FULL');
    writer.pragma('wal_autocheckpoint = 0');
    const insert = writer.prepare('INSERT INTO t (v) VALUES (?)');
    // A pass 300 ms after the first commit that follows the last one, long enough to copy ~7 MB.
    const checkpointer = startCheckpointer(path, 1_000_000, 300);
    try {
      // One commit every 4 ms, like a lane streaming deltas. A pass that copies a few MB lasts longer than
      // that, so it always met a commit made while it ran: the WAL was never fully copied when the next
      // transaction began, and the writer appended to it for as long as it kept going (0 restarts in 400
      // commits, twice, before the tail passes). A restart shows as the WAL's frame count falling (read without
      // checkpointing).
      let most = 0;
      let restarts = 0;
      for (let i = 0; i < 600 && restarts === 0; i++) {
        insert.run('x'.repeat(100_000));
        checkpointer.poke(1);
        const [row] = writer.pragma('wal_checkpoint(NOOP)') as { log: number }[];
        const log = row?.log ?? 0;
        if (log < most) restarts++;
        most = log;
        await new Promise((r) => setTimeout(r, 4));
      }
      expect(restarts).toBeGreaterThan(0);
    } finally {
      await checkpointer.close();
      writer.close();
      await remove();
    }
  });
});
