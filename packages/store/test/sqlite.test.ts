import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSqliteStore, type Store } from '../src/index';
import { storeSuite } from './store-suite';

storeSuite(
  'sqlite',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentlane-store-'));
    const path = join(dir, 'store.db');
    const store = createSqliteStore({ path });
    await store.migrate();
    const opened: Store[] = [store];
    return {
      store,
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
      async openPeer() {
        const peer = createSqliteStore({ path });
        await peer.migrate();
        opened.push(peer);
        return peer;
      },
      async dispose() {
        for (const s of opened) await s.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  {
    skips: {
      'onCommitted: commits of another process wake this one':
        'SQLite has no cross-process notification; other processes poll headDeliverySeq',
    },
  },
);
