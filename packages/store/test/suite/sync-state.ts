import { compareVectors, incrementVector, mergeVectors, type VersionVector } from '@agentlane/contract';
import { expect } from 'vitest';
import type { Store, SyncChangeRecord } from '../../src/index';
import type { SuiteContext } from './context';

// readSyncState against brute force over listSyncChanges: the heads index (kept by every append, caught up
// for changes stored without it), the pages of unseen changes and of conflicts, a writer's stored versions.

/** A small deterministic PRNG (mulberry32): the same history on every run and backend. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A causal history: clients that write (incrementing their entry) or hear another client (merging its
 * vector), each write stored at once, so every vector names stored writes only, as the server requires.
 */
async function history(store: Store, sessionId: string, writes: number, seed = 7): Promise<void> {
  const next = random(seed);
  const clients = ['ann', 'bob', 'cy', 'dee', 'eve'];
  const vectors = new Map<string, VersionVector>(clients.map((c) => [c, {}]));
  for (let n = 0; n < writes; ) {
    const who = clients[Math.floor(next() * clients.length)] as string;
    const other = clients[Math.floor(next() * clients.length)] as string;
    if (next() < 0.3) {
      vectors.set(who, mergeVectors(vectors.get(who) ?? {}, vectors.get(other) ?? {}));
      continue;
    }
    const vector = incrementVector(vectors.get(who) ?? {}, who);
    vectors.set(who, vector);
    const key = `key${Math.floor(next() * 8)}`;
    const value = { n, pad: 'x'.repeat(Math.floor(next() * 200)) };
    await store.appendSyncChanges(sessionId, [
      { clientId: who, version: vector[who] as number, key, value, vector },
    ]);
    n++;
  }
}

const ref = (c: Pick<SyncChangeRecord, 'clientId' | 'version'>) => `${c.clientId}:${c.version}`;

/** Each key's heads by brute force: the changes no other change to the key has seen. */
function bruteHeads(all: readonly SyncChangeRecord[]): Map<string, string[]> {
  const heads = new Map<string, string[]>();
  for (const c of all) {
    const later = all.some((d) => d.key === c.key && compareVectors(c.vector, d.vector) === 'ancestor');
    if (!later) heads.set(c.key, [...(heads.get(c.key) ?? []), ref(c)].sort());
  }
  return heads;
}

const headsByKey = (records: readonly SyncChangeRecord[]) => {
  const out = new Map<string, string[]>();
  for (const c of records) out.set(c.key, [...(out.get(c.key) ?? []), ref(c)].sort());
  return out;
};

/** Every page of conflicts, following `after`; each page's keys in order, whole. */
async function allConflicts(store: Store, sessionId: string, maxBytes: number) {
  const keys: string[] = [];
  const heads: SyncChangeRecord[] = [];
  let after: string | undefined;
  for (let page = 0; page < 100; page++) {
    const { conflicts } = await store.readSyncState(sessionId, { conflicts: { after, maxBytes } });
    heads.push(...conflicts.heads);
    for (const h of conflicts.heads) if (keys[keys.length - 1] !== h.key) keys.push(h.key);
    after = keys[keys.length - 1];
    if (!conflicts.more) return { keys, heads, pages: page + 1 };
  }
  throw new Error('conflict pages never end');
}

/** Every page of what `vector` has not seen, merging each page's versions into it as a client does. */
async function allUnseen(store: Store, sessionId: string, start: VersionVector, maxBytes: number) {
  let vector = start;
  const got: SyncChangeRecord[] = [];
  for (let page = 0; page < 1000; page++) {
    const { unseen } = await store.readSyncState(sessionId, { unseen: { vector, maxBytes } });
    expect(unseen.changes.length, 'a page sends one change at least').toBeGreaterThan(0);
    // Each writer's versions come without a gap after what the client has.
    for (const c of [...unseen.changes].sort((a, b) => a.version - b.version)) {
      expect(c.version, ref(c)).toBe((vector[c.clientId] ?? 0) + 1);
      vector = { ...vector, [c.clientId]: c.version };
    }
    got.push(...unseen.changes);
    if (!unseen.more) return { got, vector, pages: page + 1 };
  }
  throw new Error('unseen pages never end');
}

export function syncStateTests(s: SuiteContext): void {
  const { test, newThread } = s;

  test('sync state: heads, conflicts and unseen pages agree with the whole history, page by page', async ({
    store,
  }) => {
    const sessionId = await newThread();
    await history(store, sessionId, 160);
    const all = await store.listSyncChanges(sessionId);
    const heads = bruteHeads(all);
    const keys = [...heads.keys()].sort();
    const state = await store.readSyncState(sessionId, { keys, conflicts: { maxBytes: 1 << 20 } });
    expect(state.count).toBe(160);
    expect(headsByKey(state.heads)).toEqual(heads);
    const conflicted = keys.filter((k) => (heads.get(k) ?? []).length > 1);
    expect(conflicted.length, 'the history has conflicts to page').toBeGreaterThan(1);
    expect(state.conflicts.more).toBe(false);
    expect(headsByKey(state.conflicts.heads)).toEqual(new Map(conflicted.map((k) => [k, heads.get(k)])));
    // One key per page when every key is over the budget: the same conflicts, in key order.
    const paged = await allConflicts(store, sessionId, 1);
    expect(paged.keys).toEqual(conflicted);
    expect(paged.pages).toBe(conflicted.length);
    expect(headsByKey(paged.heads)).toEqual(headsByKey(state.conflicts.heads));
    // A new client, then one that has seen part: every unseen change once, in small pages.
    const starts: VersionVector[] = [{}, { ann: 3, bob: 1 }];
    for (const start of starts) {
      const { got, pages } = await allUnseen(store, sessionId, start, 2000);
      const expected = all.filter((c) => c.version > (start[c.clientId] ?? 0));
      expect(got.map(ref).sort()).toEqual(expected.map(ref).sort());
      expect(pages).toBeGreaterThan(3);
    }
  });

  test("sync state: a writer's newest version, and its stored changes at the versions asked", async ({
    store,
  }) => {
    const sessionId = await newThread();
    expect(await store.readSyncState(sessionId, { own: { clientId: 'a', versions: [1] } })).toMatchObject({
      count: 0,
      own: [],
    });
    await history(store, sessionId, 40, 11);
    const all = await store.listSyncChanges(sessionId);
    const newest = new Map<string, number>();
    for (const c of all) newest.set(c.clientId, Math.max(newest.get(c.clientId) ?? 0, c.version));
    const state = await store.readSyncState(sessionId, { own: { clientId: 'ann', versions: [2, 1, 99] } });
    expect([...state.newest].sort()).toEqual([...newest].sort());
    const last = newest.get('ann') ?? 0;
    const asked = [1, 2].filter((v) => v <= last);
    expect(state.own.map((c) => c.version)).toEqual([...new Set([...asked, last])].sort((a, b) => a - b));
  });

  test('sync state: changes stored without the heads index (older sessions) are folded in when read', async ({
    store,
    fx,
  }) => {
    const sessionId = await newThread();
    await history(store, sessionId, 120, 5);
    const heads = bruteHeads(await store.listSyncChanges(sessionId));
    // As a session written before the index existed, or by a process that does not keep it.
    await fx.execSql('DELETE FROM sync_key_heads WHERE session_id = ?', [sessionId]);
    await fx.execSql('UPDATE sync_heads SET folded = 0 WHERE session_id = ?', [sessionId]);
    const keys = [...heads.keys()];
    expect(headsByKey((await store.readSyncState(sessionId, { keys })).heads)).toEqual(heads);
    // The index up to change 60, then appends of an older process: caught up just the same.
    const all = await store.listSyncChanges(sessionId);
    await fx.execSql('DELETE FROM sync_key_heads WHERE session_id = ?', [sessionId]);
    await fx.execSql('UPDATE sync_heads SET folded = 60 WHERE session_id = ?', [sessionId]);
    for (const [key, refs] of bruteHeads(all.filter((c) => c.serverSeq <= 60)))
      for (const r of refs) {
        const [clientId, version] = r.split(':');
        await fx.execSql(
          'INSERT INTO sync_key_heads (session_id, key, client_id, version) VALUES (?, ?, ?, ?)',
          [sessionId, key, clientId as string, Number(version)],
        );
      }
    const caught = await store.readSyncState(sessionId, { keys, conflicts: { maxBytes: 1 << 20 } });
    expect(headsByKey(caught.heads)).toEqual(heads);
    // And the next append keeps it from there.
    const next = all.filter((c) => c.clientId === 'ann').length + 1;
    // Seen everything: its write is the key's one head.
    const vector: VersionVector = {};
    for (const c of all) vector[c.clientId] = Math.max(vector[c.clientId] ?? 0, c.version);
    vector.ann = next;
    await store.appendSyncChanges(sessionId, [
      { clientId: 'ann', version: next, key: 'key0', value: 1, vector },
    ]);
    const after = await store.readSyncState(sessionId, { keys: ['key0'] });
    expect(after.heads.map(ref)).toEqual([`ann:${next}`]);
  });

  test("sync state: a writer's versions are stored in order, and a page never skips one stored out of order", async ({
    store,
    fx,
  }) => {
    const sessionId = await newThread();
    const w = (version: number) => ({
      clientId: 'a',
      version,
      key: 'k',
      value: 'v'.repeat(50),
      vector: { a: version },
    });
    const stored = await store.appendSyncChanges(sessionId, [w(2), w(1), w(3)]);
    expect(stored.map((c) => [c.version, c.serverSeq])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    // An older server stored one call's versions in the order sent: a page that sends 2 sends 1 with it.
    const move = (version: number, seq: number) =>
      fx.execSql('UPDATE sync_changes SET server_seq = ? WHERE session_id = ? AND version = ?', [
        seq,
        sessionId,
        version,
      ]);
    await move(1, 100);
    await move(2, 1);
    await move(1, 2);
    const first = await store.readSyncState(sessionId, { unseen: { vector: {}, maxBytes: 1 } });
    expect(first.unseen.changes.map((c) => c.version)).toEqual([2, 1]);
    expect(first.unseen.more).toBe(true);
    const { got } = await allUnseen(store, sessionId, {}, 1);
    expect(got.map((c) => c.version).sort()).toEqual([1, 2, 3]);
  });
}
