import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../src/index';
import { SqlStore } from '../src/sql/sql-store';
import { createSqliteBackend } from '../src/sqlite/sqlite-backend';
import { SQLITE_MIGRATIONS } from '../src/sqlite/sqlite-migrations';

const CLUSTERED = SQLITE_MIGRATIONS.findIndex((m) => m.name === 'clustered source frames, raw frame sidecar');

describe('SQLite upgrade to clustered source frames', () => {
  it('keeps every frame, its watermark and its run through the table rebuild', async () => {
    expect(CLUSTERED).toBeGreaterThan(0);
    const dir = await mkdtemp(join(tmpdir(), 'agentlane-store-upgrade-'));
    const path = join(dir, 'store.db');
    try {
      // A database written by a build that knew only the migrations before the rebuild.
      const old = new SqlStore(createSqliteBackend(path), SQLITE_MIGRATIONS.slice(0, CLUSTERED));
      await old.migrate();
      await old.createThread({ threadId: 't', engine: 'e', title: null, workDir: null, metadata: {} });
      const run = { runId: 'run_old' };
      const at = new Date().toISOString();
      // Rows as that build wrote them (its appendFrames knew no raw budget column, its runs no lease).
      const raw = new Database(path);
      raw
        .prepare(
          "INSERT INTO runs (run_id, thread_id, status, prompt, options, created_at) VALUES (?, 't', 'queued', 'p', '{}', ?)",
        )
        .run(run.runId, at);
      raw
        .prepare("INSERT INTO source_lanes (run_id, thread_id, max_native_seq) VALUES (?, 't', 0)")
        .run(run.runId);
      const insert = raw.prepare(
        'INSERT INTO source_frames (run_id, native_seq, received_at, frame) VALUES (?, ?, ?, ?)',
      );
      for (let i = 1; i <= 50; i++) insert.run(run.runId, i, at, JSON.stringify({ i, text: `frame ${i}` }));
      raw.prepare('UPDATE source_lanes SET max_native_seq = 50 WHERE run_id = ?').run(run.runId);
      raw.close();
      const frames = await old.readFrames(run.runId);
      const watermark = await old.readWatermark(run.runId);
      await old.close();

      const store = createSqliteStore({ path });
      await store.migrate();
      try {
        expect(await store.readFrames(run.runId)).toEqual(frames);
        expect(await store.readWatermark(run.runId)).toEqual(watermark);
        // The lane counter survived too: the next frame follows the old ones.
        const next = await store.appendFrames(run.runId, [{ receivedAt: at, frame: 'next', raw: 'next\n' }]);
        expect(next[0]?.nativeSeq).toBe(51);
        expect((await store.readRawFrames(run.runId)).map((r) => r.nativeSeq)).toEqual([51]);
        // Deleting the thread (its run ended) still cascades to the rebuilt table.
        await store.finalizeRun(run.runId, 'completed');
        await store.deleteThread('t');
        expect(await store.readFrames(run.runId)).toEqual([]);
      } finally {
        await store.close();
      }
      const db = new Database(path, { readonly: true });
      const ddl = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'source_frames'").get() as {
        sql: string;
      };
      db.close();
      expect(ddl.sql).toMatch(/WITHOUT ROWID/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
