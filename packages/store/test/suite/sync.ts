import { expect } from 'vitest';
import { StoreError, type SyncChangeRecord } from '../../src/index';
import type { SuiteContext } from './context';
import { syncStateTests } from './sync-state';

/** SyncStore: version-vector changes of sync clients. */
export function syncTests(s: SuiteContext): void {
  const { test, newThread, code } = s;

  test('sync changes: a retried (clientId, version) is ignored; serverSeq follows arrival', async ({
    store,
  }) => {
    const sessionId = await newThread();
    const c1 = { clientId: 'a', version: 1, key: 'title', value: 'x', vector: { a: 1 } };
    const c2 = { clientId: 'b', version: 1, key: 'title', value: 'y', vector: { b: 1 } };
    const stored = await store.appendSyncChanges(sessionId, [c1, c2]);
    expect(stored.map((s) => [s.clientId, s.serverSeq])).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(await store.appendSyncChanges(sessionId, [c1])).toEqual([]);
    const c3 = { clientId: 'a', version: 2, key: 'pinned', value: true, vector: { a: 2, b: 1 } };
    expect((await store.appendSyncChanges(sessionId, [c1, c3])).map((s) => s.serverSeq)).toEqual([3]);
    const all = await store.listSyncChanges(sessionId);
    expect(all.map((s) => [s.clientId, s.version, s.serverSeq])).toEqual([
      ['a', 1, 1],
      ['b', 1, 2],
      ['a', 2, 3],
    ]);
    expect(all[2]).toMatchObject({ sessionId, key: 'pinned', value: true, vector: { a: 2, b: 1 } });
    expect(await code(store.appendSyncChanges(sessionId, [{ ...c1, version: 0 }]))).toBe('invalid');
  });

  test('sync limits: checked in the writing transaction; a key over its bound still takes a write that resolves it', async ({
    store,
  }) => {
    const sessionId = await newThread();
    const concurrent = (clientId: string) => ({
      clientId,
      version: 1,
      key: 'hot',
      value: clientId,
      vector: { [clientId]: 1 },
    });
    const limits = { headsPerKey: 2, writersPerSession: 4, changesPerSession: 6 };
    // Written without limits: a key already over its bound, as a race of older processes could leave it.
    await store.appendSyncChanges(sessionId, [concurrent('a'), concurrent('b'), concurrent('c')]);
    expect(await refusal(store.appendSyncChanges(sessionId, [concurrent('d')], limits))).toEqual([
      'conflict',
      'limit:heads:hot',
    ]);
    // A write of one head's client that has seen only its own write leaves three heads: not more, so taken.
    const again = { clientId: 'a', version: 2, key: 'hot', value: 'a2', vector: { a: 2 } };
    expect(await store.appendSyncChanges(sessionId, [again], limits)).toHaveLength(1);
    const resolve = { clientId: 'd', version: 1, key: 'hot', value: 'd', vector: { a: 2, b: 1, c: 1, d: 1 } };
    expect(await store.appendSyncChanges(sessionId, [resolve], limits)).toHaveLength(1);
    expect((await store.readSyncState(sessionId, { keys: ['hot'] })).heads.map((h) => h.value)).toEqual([
      'd',
    ]);
    expect(
      await refusal(store.appendSyncChanges(sessionId, [{ ...concurrent('e'), key: 'other' }], limits)),
    ).toEqual(['conflict', 'limit:writers']);
    const more = { clientId: 'd', version: 2, key: 'x', value: 1, vector: { a: 2, b: 1, c: 1, d: 2 } };
    expect(await store.appendSyncChanges(sessionId, [more], limits)).toHaveLength(1);
    const tooMany = { ...more, version: 3, vector: { ...more.vector, d: 3 } };
    expect(await refusal(store.appendSyncChanges(sessionId, [tooMany], limits))).toEqual([
      'conflict',
      'limit:changes',
    ]);
    expect(await store.listSyncChanges(sessionId)).toHaveLength(6);
  });

  syncConflictTests(s);
  syncStateTests(s);
}

/** What the store refused a change with: the code and the field it names (StoreError detail). */
async function refusal(promise: Promise<unknown>): Promise<[string, string | undefined]> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return [(error as StoreError).code, (error as StoreError).detail];
  }
  throw new Error('expected a StoreError');
}

/** A (clientId, version) is stored once: a repeat must say what is stored, checked in the writing transaction. */
export function syncConflictTests(s: SuiteContext): void {
  const { test, newThread } = s;

  test('sync changes: a stored (clientId, version) again with other content or another vector is a conflict naming it', async ({
    store,
  }) => {
    const sessionId = await newThread();
    const first = { clientId: 'a', version: 1, key: 'k', value: { x: 1, y: [1, 2] }, vector: { a: 1 } };
    expect(await store.appendSyncChanges(sessionId, [first])).toHaveLength(1);
    // The same write again (key order of the value and of the vector aside) is a repeat: nothing stored.
    expect(
      await store.appendSyncChanges(sessionId, [{ ...first, value: { y: [1, 2], x: 1 }, vector: { a: 1 } }]),
    ).toEqual([]);
    const next = { clientId: 'a', version: 2, key: 'k', value: 'two', vector: { a: 2 } };
    expect(await refusal(store.appendSyncChanges(sessionId, [next, { ...first, value: 'other' }]))).toEqual([
      'conflict',
      'changes[1].version',
    ]);
    expect(await refusal(store.appendSyncChanges(sessionId, [{ ...first, key: 'other' }]))).toEqual([
      'conflict',
      'changes[0].version',
    ]);
    expect(await refusal(store.appendSyncChanges(sessionId, [{ ...first, vector: { a: 1, b: 1 } }]))).toEqual(
      ['conflict', 'changes[0].vector'],
    );
    // A refused sync stores nothing of it, its fresh changes included.
    expect((await store.listSyncChanges(sessionId)).map((c) => [c.version, c.value])).toEqual([
      [1, { x: 1, y: [1, 2] }],
    ]);
  });

  test('sync changes: two stores racing one (clientId, version) with different values: one stores it, the other gets the conflict', async ({
    store,
    fx,
  }) => {
    const peer = await fx.openPeer();
    const sessionId = await newThread();
    for (let trial = 0; trial < 20; trial++) {
      const change = (value: string) => ({ clientId: `c${trial}`, version: 1, key: 'k', value, vector: {} });
      const write = (s: typeof store, value: string) => {
        const ch = change(value);
        return s.appendSyncChanges(sessionId, [{ ...ch, vector: { [ch.clientId]: 1 } }]);
      };
      const results = await Promise.allSettled([write(store, 'from store'), write(peer, 'from peer')]);
      const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      expect(won, `trial ${trial}: exactly one writer stores the change`).toHaveLength(1);
      const winner = results[won[0] ?? 0] as PromiseFulfilledResult<SyncChangeRecord[]>;
      expect(winner.value).toHaveLength(1);
      const loser = results[1 - (won[0] ?? 0)] as PromiseRejectedResult;
      expect(await refusal(Promise.reject(loser.reason))).toEqual(['conflict', 'changes[0].version']);
      const stored = (await store.listSyncChanges(sessionId)).filter((c) => c.clientId === `c${trial}`);
      expect(stored.map((c) => c.value)).toEqual([winner.value[0]?.value]);
    }
    // The same write racing itself is a repeat, not a conflict: both succeed, one stores it.
    for (let trial = 0; trial < 10; trial++) {
      const ch = {
        clientId: `same${trial}`,
        version: 1,
        key: 'k',
        value: 'v',
        vector: { [`same${trial}`]: 1 },
      };
      const results = await Promise.all([
        store.appendSyncChanges(sessionId, [ch]),
        peer.appendSyncChanges(sessionId, [ch]),
      ]);
      expect(results.map((r) => r.length).sort()).toEqual([0, 1]);
    }
  });
}
