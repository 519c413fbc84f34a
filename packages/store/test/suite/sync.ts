import { expect } from 'vitest';
import type { SuiteContext } from './context';

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
}
