import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { StoreError } from '../../src/index';
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

  deleteWhileRunningTests(s);

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
    // A thread is deleted once its runs have ended.
    await store.finalizeRun(runId, 'completed');
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

/** The StoreError a settled promise was rejected with (fails the test for anything else). */
function storeError(result: PromiseSettledResult<unknown>): StoreError {
  expect(result.status).toBe('rejected');
  const reason = (result as PromiseRejectedResult).reason as unknown;
  expect(reason).toBeInstanceOf(StoreError);
  return reason as StoreError;
}

/**
 * A thread with a queued or running run is not deleted (its run would go on writing into nothing), checked in
 * the deleting transaction under the thread's lock, which run.create takes too.
 */
function deleteWhileRunningTests(s: SuiteContext): void {
  const { test, newThread, newRun, code } = s;

  test('deleteThread refuses while a run is queued or running; run.create on a deleted thread is not_found', async ({
    store,
  }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const [queued] = await Promise.allSettled([store.deleteThread(threadId)]);
    expect(storeError(queued as PromiseSettledResult<unknown>)).toMatchObject({
      code: 'conflict',
      message: `run ${runId} of this session is queued: cancel it, then delete the session`,
    });
    expect(await store.claimRun(runId, 'owner')).toMatchObject({ status: 'running' });
    const [running] = await Promise.allSettled([store.deleteThread(threadId)]);
    expect(storeError(running as PromiseSettledResult<unknown>).message).toBe(
      `run ${runId} of this session is running: cancel it, then delete the session`,
    );
    expect(await store.getRun(runId)).toMatchObject({ status: 'running' });
    await store.finalizeRun(runId, 'completed');
    await store.deleteThread(threadId);
    expect(await store.getThread(threadId)).toBeNull();
    expect(await code(store.createRun({ threadId, prompt: 'late' }))).toBe('not_found');
  });

  test('deleteThread racing run.create on two stores: the thread goes without the run, or stays with it', async ({
    store,
    fx,
  }) => {
    const peer = await fx.openPeer();
    for (let trial = 0; trial < 20; trial++) {
      const threadId = await newThread();
      const [deleter, creator] = trial % 2 === 0 ? [store, peer] : [peer, store];
      // Either call may be sent first (on SQLite the one sent first commits first).
      const remove = () => deleter.deleteThread(threadId);
      const create = () => creator.createRun({ threadId, prompt: 'race' });
      const [deleted, created] =
        trial % 4 < 2
          ? await Promise.allSettled([remove(), create()])
          : await Promise.allSettled([create(), remove()]).then(([c, d]) => [d, c] as const);
      if (deleted.status === 'fulfilled') {
        // Deleted first: run.create finds no thread (never a foreign-key error), and nothing is left.
        expect(storeError(created).code, `trial ${trial}`).toBe('not_found');
        expect(await store.getThread(threadId)).toBeNull();
        expect(await store.listRuns(threadId)).toEqual([]);
      } else {
        // Created first: the delete is refused, and the run it accepted is there to run.
        expect(storeError(deleted).code, `trial ${trial}`).toBe('conflict');
        expect(created.status, `trial ${trial}`).toBe('fulfilled');
        const { run } = (created as PromiseFulfilledResult<{ run: { runId: string } }>).value;
        expect(await peer.getRun(run.runId)).toMatchObject({ threadId, status: 'queued' });
        expect(await store.getThread(threadId)).not.toBeNull();
      }
    }
  });
}
