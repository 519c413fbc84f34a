import { expect } from 'vitest';
import type { SuiteContext } from './context';

/** OutboxStore: the canonicalization outbox and completion records. */
export function outboxTests(s: SuiteContext): void {
  const { test, newThread, newRun, event, code } = s;

  test('completions: every completion record of a thread in one read', async ({ store }) => {
    const threadId = await newThread();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const runId = await newRun(threadId);
      await store.claimRun(runId, 'o');
      await store.finalizeRun(runId, 'completed');
      const mark = await store.sealSource(runId);
      expect(await store.completeCanonicalization(runId, mark)).not.toBeNull();
      ids.push(runId);
    }
    expect((await store.listCompletions(threadId)).map((c) => c.runId).sort()).toEqual(ids.sort());
    expect(await store.listCompletions('thr_none')).toEqual([]);
  });

  test('completion: written only while the watermark holds; an in-place frame rewrite is caught', async ({
    store,
    fx,
  }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    await store.claimRun(runId, 'me');
    const at = new Date().toISOString();
    await store.appendFrames(runId, [
      { receivedAt: at, frame: { text: 'one' } },
      { receivedAt: at, frame: { text: 'two' } },
    ]);
    await store.appendEvents(threadId, [event(threadId, runId, 1), event(threadId, runId, 2)], true);
    expect(await code(store.completeCanonicalization(runId, await store.readWatermark(runId)))).toBe(
      'conflict',
    );
    await store.finalizeRun(runId, 'completed');
    // Not sealed yet: no completion.
    expect(await store.completeCanonicalization(runId, await store.readWatermark(runId))).toBeNull();

    const translatedFrom = await store.sealSource(runId);
    // Between translation and the re-read, a frame row is rewritten in place with plain SQL.
    await fx.rewriteFrame(runId, 2, { text: 'TWO' });
    const after = await store.readWatermark(runId);
    expect(after.maxNativeSeq).toBe(translatedFrom.maxNativeSeq);
    expect(after.signature).not.toBe(translatedFrom.signature);
    expect(await store.completeCanonicalization(runId, translatedFrom)).toBeNull();
    expect(await store.getCompletion(runId)).toBeNull();
    expect((await store.readEvents(threadId, 0, 10)).every((r) => r.provisional)).toBe(true);
    expect((await store.leaseOutbox('w1', 10, 60_000)).map((e) => e.runId)).toEqual([runId]);

    // The retry translates from the stable source and completes, once.
    const record = await store.completeCanonicalization(runId, await store.readWatermark(runId));
    expect(record).toMatchObject({ runId, threadId, lastDeliverySeq: 2, watermark: after });
    expect(await store.completeCanonicalization(runId, translatedFrom)).toEqual(record);
    expect(await store.getCompletion(runId)).toEqual(record);
    expect((await store.getRun(runId))?.canonicalizedAt).toBe(record?.completedAt);
    expect(await store.leaseOutbox('w2', 10, 0)).toEqual([]);

    // Provisional is derived: covered rows read final; a row appended later stays provisional.
    await store.appendEvents(threadId, [event(threadId, runId, 3)], true);
    const rows = await store.readEvents(threadId, 0, 10);
    expect(rows.map((r) => r.provisional)).toEqual([false, false, true]);
    expect((await store.latestEvents({ threadId, runId })).map((r) => r.provisional)).toEqual([
      false,
      false,
      true,
    ]);
  });

  test('outbox: leases exclude other workers until they expire; release records the error', async ({
    store,
  }) => {
    const threadId = await newThread();
    const a = await newRun(threadId);
    const b = await newRun(threadId);
    await store.finalizeRun(a, 'completed');
    await store.finalizeRun(b, 'failed', 'boom');
    const w1 = await store.leaseOutbox('w1', 1, 60_000);
    expect(w1).toHaveLength(1);
    expect(w1[0]).toMatchObject({ runId: a, threadId, attempts: 1 });
    const w2 = await store.leaseOutbox('w2', 10, 60_000);
    expect(w2.map((e) => e.runId)).toEqual([b]);
    expect(await store.leaseOutbox('w3', 10, 60_000)).toEqual([]);
    await store.releaseOutbox(a, 'translator crashed');
    const again = await store.leaseOutbox('w3', 10, 1);
    expect(again).toEqual([
      expect.objectContaining({ runId: a, attempts: 2, lastError: 'translator crashed' }),
    ]);
    await new Promise((r) => setTimeout(r, 5));
    // The 1 ms lease has expired.
    expect((await store.leaseOutbox('w4', 10, 60_000)).map((e) => e.runId)).toEqual([a]);
  });
}
