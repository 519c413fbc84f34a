import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteStore, type Store } from '../src/index';
import { storeSuite } from './store-suite';

storeSuite('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agentlane-store-'));
  const path = join(dir, 'store.db');
  const store = createSqliteStore({ path });
  await store.migrate();
  const opened: Store[] = [store];
  return {
    store,
    dialect: 'sqlite',
    async rewriteFrame(runId, nativeSeq, frame) {
      const db = new Database(path);
      try {
        db.prepare('UPDATE source_frames SET frame = ? WHERE run_id = ? AND native_seq = ?').run(
          JSON.stringify(frame),
          runId,
          nativeSeq,
        );
      } finally {
        db.close();
      }
    },
    async execSql(sql, params = []) {
      const db = new Database(path);
      try {
        db.prepare(sql).run(...params);
      } finally {
        db.close();
      }
    },
    async querySql(sql, params = []) {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare(sql).all(...params) as Record<string, unknown>[];
      } finally {
        db.close();
      }
    },
    async openPeer(options) {
      const peer = createSqliteStore({ path, ...options });
      await peer.migrate();
      opened.push(peer);
      return peer;
    },
    async dispose() {
      for (const s of opened) await s.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite across processes', () => {
  it('onSignal hears the live signals of another process (the signal log), in order, once each; not its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentlane-store-xsig-'));
    const path = join(dir, 'store.db');
    const store = createSqliteStore({ path });
    const peer = createSqliteStore({ path }); // another store of this process: heard in-process, once
    try {
      await store.migrate();
      const heard: unknown[] = [];
      const stop = store.onSignal((threadId, signal) => heard.push([threadId, signal]));
      await store.listening();
      await peer.broadcastSignal('t', { type: 'run.status', n: 0 });
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          fileURLToPath(new URL('./helpers/signal-child.ts', import.meta.url)),
          path,
          't',
          '5',
        ],
        { stdio: ['ignore', 'inherit', 'inherit'] },
      );
      expect(await new Promise<number | null>((resolve) => child.on('exit', resolve))).toBe(0);
      for (let i = 0; i < 200 && heard.length < 6; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100)); // a second hearing would come within a few polls
      stop();
      expect(heard).toEqual([0, 1, 2, 3, 4, 5].map((n) => ['t', { type: 'run.status', n }]));
    } finally {
      await peer.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('onCommitted hears the commits of another process (data_version poll), in order, once each', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentlane-store-xproc-'));
    const path = join(dir, 'store.db');
    const store = createSqliteStore({ path });
    try {
      await store.migrate();
      await store.createThread({ threadId: 't', engine: 'e', title: null, workDir: null, metadata: {} });
      const { run } = await store.createRun({ threadId: 't', prompt: 'p' });
      const heard: number[] = [];
      const stop = store.onCommitted((threadId, head) => {
        if (threadId === 't') heard.push(head);
      });
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          fileURLToPath(new URL('./helpers/append-child.ts', import.meta.url)),
          path,
          't',
          run.runId,
          '20',
        ],
        { stdio: ['ignore', 'inherit', 'inherit'] },
      );
      const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(exitCode).toBe(0);
      for (let i = 0; i < 100 && heard[heard.length - 1] !== 20; i++)
        await new Promise((r) => setTimeout(r, 20));
      stop();
      expect(heard[heard.length - 1]).toBe(20);
      // Polling may fold several commits into one wake-up, but never repeats or goes back.
      expect(heard.every((h, i) => i === 0 || h > (heard[i - 1] ?? 0))).toBe(true);
      expect((await store.readEvents('t', 0, 100)).map((r) => r.deliverySeq)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
