import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteStore, type SourceFrameRecord } from '../src/index';
import { SqlStore } from '../src/sql/sql-store';
import { createSqliteBackend } from '../src/sqlite/sqlite-backend';
import { SQLITE_MIGRATIONS } from '../src/sqlite/sqlite-migrations';

const CLUSTERED = SQLITE_MIGRATIONS.findIndex((m) => m.name === 'clustered source frames, raw frame sidecar');
const FRAME_HASHES = SQLITE_MIGRATIONS.findIndex((m) => m.name === 'frame hashes and lane rewrite counts');

/** The watermark of frames signed by their text, as every build before the frame hashes signed them. */
function textWatermark(frames: SourceFrameRecord[]): { maxNativeSeq: number; signature: string } {
  const hash = createHash('sha256');
  for (const f of frames) hash.update(`${f.nativeSeq}\n${JSON.stringify(f.frame)}\n`);
  return { maxNativeSeq: frames.at(-1)?.nativeSeq ?? 0, signature: `sha256-${hash.digest('hex')}` };
}

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
      // The watermark those rows had: every frame signed by its text (this build's readWatermark needs the
      // columns of later migrations).
      const watermark = { ...textWatermark(frames), sealed: false };
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

describe('SQLite upgrade to frame hashes', () => {
  it('a run written before keeps its watermark (frames signed by their text), completes, and is deleted', async () => {
    expect(FRAME_HASHES).toBe(SQLITE_MIGRATIONS.length - 1);
    const dir = await mkdtemp(join(tmpdir(), 'agentlane-store-upgrade-'));
    const path = join(dir, 'store.db');
    try {
      const old = new SqlStore(createSqliteBackend(path), SQLITE_MIGRATIONS.slice(0, FRAME_HASHES));
      await old.migrate();
      await old.createThread({ threadId: 't', engine: 'e', title: null, workDir: null, metadata: {} });
      const { run } = await old.createRun({ threadId: 't', prompt: 'p' });
      await old.close();
      // Frames as that build appended them (no frame_sha256 column yet), a 1 MB one among them.
      const at = new Date().toISOString();
      const texts = [{ n: 1 }, { s: 'x'.repeat(1024 * 1024) }, { n: 3 }].map((f) => JSON.stringify(f));
      const raw = new Database(path);
      const insert = raw.prepare(
        'INSERT INTO source_frames (run_id, native_seq, received_at, frame) VALUES (?, ?, ?, ?)',
      );
      for (const [i, text] of texts.entries()) insert.run(run.runId, i + 1, at, text);
      raw.prepare('UPDATE source_lanes SET max_native_seq = 3 WHERE run_id = ?').run(run.runId);
      raw.close();

      const store = createSqliteStore({ path });
      await store.migrate();
      try {
        const frames = await store.readFrames(run.runId);
        expect(frames.map((f) => JSON.stringify(f.frame))).toEqual(texts);
        expect(await store.readWatermark(run.runId)).toEqual({ ...textWatermark(frames), sealed: false });
        await store.finalizeRun(run.runId, 'completed');
        const sealed = await store.sealSource(run.runId);
        expect(sealed).toEqual({ ...textWatermark(frames), sealed: true });
        expect(await store.completeCanonicalization(run.runId, sealed)).not.toBeNull();
        await store.deleteThread('t');
        expect(await store.readFrames(run.runId)).toEqual([]);
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
