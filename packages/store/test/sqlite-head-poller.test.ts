import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { HeadPoller } from '../src/sqlite/head-poller';
import { walFile } from './helpers/wal-file';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SQLite head poller', () => {
  it('reads the heads only when another connection committed, never for its own process’s commits', async () => {
    const { path, writer, remove } = await walFile(
      'heads.db',
      'CREATE TABLE thread_heads (thread_id TEXT PRIMARY KEY, head INTEGER NOT NULL)',
    );
    const reader = new Database(path);
    const other = new Database(path);
    const heard: [string, number][] = [];
    const poller = new HeadPoller(writer, reader, 2, (threadId, head) => heard.push([threadId, head]));
    try {
      poller.start();
      const readsAtStart = poller.headReads;
      // This process writing alone (its commits are announced by the store itself, not by the poll).
      const upsert = writer.prepare(
        'INSERT INTO thread_heads VALUES (?, ?) ON CONFLICT (thread_id) DO UPDATE SET head = excluded.head',
      );
      for (let head = 1; head <= 20; head++) {
        upsert.run('mine', head);
        poller.note('mine', head);
        await sleep(4);
      }
      expect(poller.headReads).toBe(readsAtStart);
      expect(heard).toEqual([]);
      // Another connection (another process) commits: heard once, by one read of the heads.
      other.prepare('INSERT INTO thread_heads VALUES (?, ?)').run('theirs', 7);
      for (let i = 0; i < 100 && heard.length === 0; i++) await sleep(5);
      expect(heard).toEqual([['theirs', 7]]);
      expect(poller.headReads).toBe(readsAtStart + 1);
    } finally {
      poller.stop();
      other.close();
      reader.close();
      writer.close();
      await remove();
    }
  });
});
