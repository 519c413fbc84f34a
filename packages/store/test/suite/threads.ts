import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { SuiteContext } from './context';

/** ThreadStore: threads, their pages, and deleting one with everything under it. */
export function threadTests(s: SuiteContext): void {
  const { test, newThread, newRun, event, code } = s;

  test('listThreads with threadIds filters before paging: a scoped page never names another thread', async ({
    store,
  }) => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await newThread());
    const mine = [ids[0] as string, ids[2] as string];
    const first = await store.listThreads({ threadIds: mine, limit: 1 });
    expect(first.items.map((t) => t.threadId)).toHaveLength(1);
    const second = await store.listThreads({ threadIds: mine, limit: 1, cursor: first.nextCursor ?? '' });
    expect([...first.items, ...second.items].map((t) => t.threadId).sort()).toEqual([...mine].sort());
    expect(second.nextCursor).toBeNull();
    expect((await store.listThreads({ threadIds: [], limit: 10 })).items).toEqual([]);
  });

  test('threads: create, get, update, list with filters and cursor, delete', async ({ store }) => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const threadId = `thr_${i}_${randomUUID()}`;
      ids.push(threadId);
      await store.createThread({
        threadId,
        engine: i % 2 === 0 ? 'even' : 'odd',
        title: `Title ${i}%`,
        workDir: '/tmp',
        metadata: { i },
      });
    }
    expect(
      await code(
        store.createThread({
          threadId: ids[0] ?? '',
          engine: 'x',
          title: null,
          workDir: null,
          metadata: {},
        }),
      ),
    ).toBe('conflict');
    const got = await store.getThread(ids[1] ?? '');
    expect(got).toMatchObject({ engine: 'odd', title: 'Title 1%', workDir: '/tmp', metadata: { i: 1 } });
    const updated = await store.updateThread(ids[1] ?? '', {
      title: 'Renamed',
      metadata: { pinned: true },
    });
    expect(updated).toMatchObject({ title: 'Renamed', metadata: { pinned: true } });
    expect(await store.getThread(ids[1] ?? '')).toMatchObject({ title: 'Renamed' });
    expect(await code(store.updateThread('missing', { title: 'x' }))).toBe('not_found');

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listThreads({ limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((t) => t.threadId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen.sort()).toEqual([...ids].sort());
    expect((await store.listThreads({ limit: 10, engine: 'even' })).items).toHaveLength(3);
    expect((await store.listThreads({ limit: 10, search: 'title 3%' })).items.map((t) => t.threadId)).toEqual(
      [ids[3]],
    );
    expect((await store.listThreads({ limit: 10, search: '_' })).items).toHaveLength(0);
    expect(await code(store.listThreads({ limit: 10, cursor: 'garbage' }))).toBe('invalid');
    // Search folds case by Unicode rules on both backends, not ASCII only.
    await store.createThread({
      threadId: 'unicode',
      engine: 'x',
      title: 'Ünïcödé ＡＢＣ',
      workDir: null,
      metadata: {},
    });
    for (const term of ['Ü', 'ünï', 'ＡＢ', 'ａｂｃ'])
      expect(
        (await store.listThreads({ limit: 10, search: term })).items.map((t) => t.threadId),
        term,
      ).toEqual(['unicode']);

    await store.deleteThread(ids[0] ?? '');
    expect(await store.getThread(ids[0] ?? '')).toBeNull();
    await store.deleteThread(ids[0] ?? '');
  });

  test('deleteThread removes its frames and canonical rows; appends to it afterwards are refused', async ({
    store,
  }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const other = await newThread();
    const otherRun = await newRun(other);
    const at = new Date().toISOString();
    for (const [t, r] of [
      [threadId, runId],
      [other, otherRun],
    ] as const) {
      await store.appendFrames(r, [{ receivedAt: at, frame: { n: 1 } }]);
      await store.appendEvents(t, [event(t, r, 1)], true);
    }
    await store.deleteThread(threadId);
    expect(await store.readEvents(threadId, 0, 10)).toEqual([]);
    expect(await store.readFrames(runId)).toEqual([]);
    expect(await store.headDeliverySeq(threadId)).toBe(0);
    expect(await code(store.appendEvents(threadId, [event(threadId, runId, 2)], true))).toBe('not_found');
    expect(await code(store.appendFrames(runId, [{ receivedAt: at, frame: 2 }]))).toBe('not_found');
    // The other thread keeps everything.
    expect(await store.readEvents(other, 0, 10)).toHaveLength(1);
    expect(await store.readFrames(otherRun)).toHaveLength(1);
  });

  test('deleteThread removes the thread with its runs, events, frames and sessions', async ({ store }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    await store.appendFrames(runId, [{ receivedAt: new Date().toISOString(), frame: 1 }]);
    await store.appendEvents(threadId, [event(threadId, runId, 1)], true);
    await store.finalizeRun(runId, 'completed');
    await store.deleteThread(threadId);
    expect(await store.getRun(runId)).toBeNull();
    expect(await store.readEvents(threadId, 0, 10)).toEqual([]);
    expect(await store.headDeliverySeq(threadId)).toBe(0);
    expect(await store.leaseOutbox('w', 10, 1000)).toEqual([]);
  });
}
