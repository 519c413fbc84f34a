import { mergeVectors, type VersionVector } from '@agentlane/contract';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conflictsOf, resolveState, type SyncChange, type SyncConflict } from '../src';
import { SYNC_LIMITS } from '../src/sync/sync-state';
import { postJson, startTestServer, type TestServer } from './support/harness';

// A sync's work and answer are bounded by a page, not by the session: a session near the change cap used to
// cost every sync a read of all its changes (twice) and a fresh client one answer with all of them (18.7 MB,
// the event loop blocked for about 22 s). Here a client follows `more` across pages and converges, a client
// that ignores `more` converges over its later syncs, and the rows a sync reads are counted.

/** Rows the SQLite statements on sync tables returned, counted from every statement prepared from now on. */
const rowsRead = { count: 0 };
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function spied(this: Database.Database, sql: string) {
  const stmt = prepare.call(this, sql);
  if (!sql.includes('sync_')) return stmt;
  const all = stmt.all.bind(stmt) as (...params: unknown[]) => unknown[];
  stmt.all = (...params: unknown[]) => {
    const rows = all(...params);
    rowsRead.count += rows.length;
    return rows;
  };
  return stmt;
} as typeof prepare;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  Database.prototype.prepare = prepare;
  await t.close();
});

const WRITERS = ['w0', 'w1', 'w2'];
/** About 3 KB a change: 600 of them are two pages of changes, and their conflicts two pages of conflicts. */
const PAD = 'x'.repeat(3000);

/** Writers that never hear each other: each key ends with one head per writer, a conflict of three. */
async function writeSession(session: string, perWriter: number): Promise<void> {
  for (const w of WRITERS) {
    for (let from = 1; from <= perWriter; from += 100) {
      const changes = Array.from({ length: Math.min(100, perWriter - from + 1) }, (_, i) => ({
        key: `k${(from + i) % 40}`,
        value: `${PAD}${w}${from + i}`,
        version: from + i,
        vector: { [w]: from + i },
      }));
      const last = changes[changes.length - 1]?.version as number;
      const res = await postJson(`${t.api}/sessions/${session}/sync`, {
        clientId: w,
        vector: { [w]: last },
        changes,
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
    }
  }
}

interface Pages {
  changes: SyncChange[];
  conflicts: SyncConflict[];
  vector: VersionVector;
  pages: number;
  largest: number;
}

/** Syncs `clientId` until nothing is left: following `more` with `cursor`, or (`old`) as a client that ignores both. */
async function syncAll(session: string, clientId: string, old = false): Promise<Pages> {
  const got: Pages = { changes: [], conflicts: [], vector: {}, pages: 0, largest: 0 };
  let cursor: string | undefined;
  for (; got.pages < 50; ) {
    const res = await fetch(`${t.api}/sessions/${session}/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId, vector: got.vector, changes: [], ...(cursor ? { cursor } : {}) }),
    });
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(200);
    const json = JSON.parse(text);
    got.pages++;
    got.largest = Math.max(got.largest, Buffer.byteLength(text));
    got.changes.push(...json.changes);
    if (!old || got.pages === 1) got.conflicts.push(...json.conflicts);
    got.vector = mergeVectors(got.vector, json.vector);
    if (old ? json.changes.length === 0 : !json.more) return got;
    cursor = json.cursor;
  }
  throw new Error('sync pages never end');
}

const ref = (c: { clientId: string; version: number }) => `${c.clientId}:${c.version}`;

describe('sync answers in pages', () => {
  let session: string;
  let all: SyncChange[];
  beforeAll(async () => {
    session = await t.createSession();
    await writeSession(session, 200);
    all = (await t.store.listSyncChanges(session)).map(({ clientId, version, key, value, vector }) => ({
      clientId,
      version,
      key,
      value,
      vector,
    }));
  });

  it('a new client gets every change and every conflict across pages of about 1 MiB, and converges', async () => {
    const got = await syncAll(session, 'fresh');
    expect(got.pages).toBeGreaterThanOrEqual(2);
    // A page: about replyChangeBytes of changes and replyConflictBytes of conflicts (plus one of each over).
    expect(got.largest).toBeLessThan(SYNC_LIMITS.replyChangeBytes + SYNC_LIMITS.replyConflictBytes + 16_384);
    expect(got.changes.map(ref).sort()).toEqual(all.map(ref).sort());
    expect(new Set(got.changes.map(ref)).size).toBe(600);
    expect(got.vector).toEqual({ w0: 200, w1: 200, w2: 200 });
    expect(resolveState(got.changes)).toEqual(resolveState(all));
    expect(got.conflicts).toEqual(conflictsOf(all));
    expect(got.conflicts).toHaveLength(40);
  });

  it('a client that ignores `more` still gets every change, at its later syncs', async () => {
    const got = await syncAll(session, 'old-client', true);
    expect(got.pages).toBeGreaterThan(2);
    expect(got.changes.map(ref).sort()).toEqual(all.map(ref).sort());
    expect(got.vector).toEqual({ w0: 200, w1: 200, w2: 200 });
    // Its first answer holds the first page of conflicts, in key order.
    expect(got.conflicts.length).toBeGreaterThan(0);
    expect(got.conflicts).toEqual(conflictsOf(all).slice(0, got.conflicts.length));
  });

  it('a cursor this server never sent is a 400 naming it', async () => {
    const res = await postJson(`${t.api}/sessions/${session}/sync`, {
      clientId: 'fresh',
      vector: {},
      changes: [],
      cursor: 'zz',
    });
    expect([res.status, res.json.error?.field]).toEqual([400, 'body.cursor']);
  });
});

describe('sync work per request', () => {
  it('is bounded by what the client has not seen, not by the changes the session holds', async () => {
    const session = await t.createSession();
    const append = (w: string, from: number, count: number) =>
      t.store.appendSyncChanges(
        session,
        Array.from({ length: count }, (_, i) => ({
          clientId: w,
          version: from + i,
          key: `k${(from + i) % 7}`,
          value: from + i,
          vector: { [w]: from + i },
        })),
      );
    // 3,000 changes through the store: the rows a sync reads are counted from here.
    for (const w of WRITERS) for (let from = 1; from <= 1000; from += 250) await append(w, from, 250);
    const read = async (body: unknown) => {
      rowsRead.count = 0;
      const res = await postJson(`${t.api}/sessions/${session}/sync`, body);
      expect(res.status, JSON.stringify(res.json).slice(0, 300)).toBe(200);
      return { rows: rowsRead.count, json: res.json };
    };
    const upToDate = { w0: 1000, w1: 1000, w2: 1000 };
    // Nothing new: a few rows (each writer's newest, the 7 conflicts' 21 heads), where every sync read 6,000.
    const idle = await read({ clientId: 'reader', vector: upToDate, changes: [] });
    expect(idle.json.changes).toEqual([]);
    expect(idle.json.conflicts).toHaveLength(7);
    expect(idle.rows).toBeLessThan(100);
    // Five new changes of each writer since: about those.
    for (const w of WRITERS) await append(w, 1001, 5);
    const behind = await read({ clientId: 'reader', vector: upToDate, changes: [] });
    expect(behind.json.changes).toHaveLength(15);
    expect(behind.rows).toBeLessThan(150);
    // A write: its key's heads, and its own versions.
    const vector = { w0: 1006, w1: 1005, w2: 1005 };
    const write = await read({
      clientId: 'w0',
      vector,
      changes: [{ key: 'k0', value: 'resolved', version: 1006, vector }],
    });
    expect(write.json.conflicts.map((c: SyncConflict) => c.key)).not.toContain('k0');
    expect(write.rows).toBeLessThan(150);
  });
});
