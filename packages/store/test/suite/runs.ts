import { expect } from 'vitest';
import type { SuiteContext } from './context';

/** RunStore: run.create and run.cancel, claims, leases, settling. */
export function runTests(s: SuiteContext): void {
  const { test, newThread, newRun, code } = s;

  test('runs: run.create is idempotent by key; same key + other body is an idempotency_conflict', async ({
    store,
  }) => {
    const threadId = await newThread();
    const first = await store.createRun({
      threadId,
      prompt: 'hello',
      idempotencyKey: 'k1',
      options: { model: 'm' },
    });
    expect(first.created).toBe(true);
    expect(first.run).toMatchObject({
      status: 'queued',
      prompt: 'hello',
      options: { model: 'm' },
      parentRunId: null,
    });
    const retry = await store.createRun({
      threadId,
      prompt: 'hello',
      idempotencyKey: 'k1',
      options: { model: 'm' },
    });
    expect(retry).toEqual({ run: first.run, created: false });
    expect(await code(store.createRun({ threadId, prompt: 'other', idempotencyKey: 'k1' }))).toBe(
      'idempotency_conflict',
    );
    // Concurrent retries of one request create one run.
    const racing = await Promise.all(
      Array.from({ length: 6 }, () => store.createRun({ threadId, prompt: 'race', idempotencyKey: 'k2' })),
    );
    expect(new Set(racing.map((r) => r.run.runId)).size).toBe(1);
    expect(racing.filter((r) => r.created)).toHaveLength(1);
    expect(await store.listRuns(threadId)).toHaveLength(2);

    const reply = await store.createRun({ threadId, prompt: 'reply', parentRunId: first.run.runId });
    expect(reply.run.parentRunId).toBe(first.run.runId);
    expect(await code(store.createRun({ threadId, prompt: 'x', parentRunId: 'run_missing' }))).toBe(
      'invalid',
    );
    expect(await code(store.createRun({ threadId: 'missing', prompt: 'x' }))).toBe('not_found');
    const commands = await store.listCommandsSince(null);
    expect(commands.filter((c) => c.kind === 'run.create')).toHaveLength(3);
    expect(commands.find((c) => c.idempotencyKey === 'k1')?.runId).toBe(first.run.runId);
  });

  test("runs: a thread's runs take turns; other threads' runs are claimed meanwhile", async ({ store }) => {
    const t1 = await newThread();
    const t2 = await newThread();
    const a = await newRun(t1);
    const b = await newRun(t1);
    const c = await newRun(t2);
    expect((await store.claimQueuedRun('o'))?.runId).toBe(a);
    // b waits for a (same thread, one engine session); c runs beside it.
    expect((await store.claimQueuedRun('o'))?.runId).toBe(c);
    expect(await store.claimQueuedRun('o')).toBeNull();
    await store.finalizeRun(a, 'completed');
    expect((await store.claimQueuedRun('o'))?.runId).toBe(b);
  });

  test('runs: claim, cancel command, finalize enqueues canonicalization in the same transaction', async ({
    store,
  }) => {
    const threadId = await newThread();
    const a = await newRun(threadId);
    const b = await newRun(threadId);
    const claimed = await store.claimQueuedRun('owner-1');
    expect(claimed).toMatchObject({ runId: a, status: 'running', ownerId: 'owner-1' });
    expect(claimed?.startedAt).not.toBeNull();
    expect(await store.claimRun(a, 'owner-2')).toBeNull();
    expect(await store.claimRun(b, 'owner-2')).toMatchObject({ runId: b, ownerId: 'owner-2' });
    expect(await store.claimQueuedRun('owner-3')).toBeNull();
    expect((await store.listRunningRuns()).map((r) => r.runId).sort()).toEqual([a, b].sort());

    const cancel = await store.requestCancel(a, 'c1');
    expect(cancel).toMatchObject({ kind: 'run.cancel', runId: a, threadId, idempotencyKey: 'c1' });
    expect(await store.requestCancel(a, 'c1')).toEqual(cancel);
    expect(await code(store.requestCancel(b, 'c1'))).toBe('idempotency_conflict');
    expect(await code(store.requestCancel('run_missing'))).toBe('not_found');
    const later = await store.listCommandsSince(cancel.createdAt);
    expect(later.every((c) => c.createdAt > cancel.createdAt)).toBe(true);

    const done = await store.finalizeRun(a, 'completed');
    expect(done).toMatchObject({ status: 'completed', error: null });
    expect(done.endedAt).not.toBeNull();
    expect(await store.finalizeRun(a, 'completed')).toMatchObject({ status: 'completed' });
    expect(await code(store.finalizeRun(a, 'failed'))).toBe('conflict');
    const failed = await store.finalizeRun(b, 'failed', 'engine died');
    expect(failed.error).toBe('engine died');
    expect(await store.listRunningRuns()).toEqual([]);
    const leased = await store.leaseOutbox('w', 10, 60_000);
    expect(leased.map((e) => e.runId).sort()).toEqual([a, b].sort());
  });

  test('runs: a cancelled run settles completed with outcome cancelled, never as a failure', async ({
    store,
  }) => {
    const threadId = await newThread();
    const a = await newRun(threadId);
    const b = await newRun(threadId);
    expect((await store.getRun(a))?.outcome).toBeNull();
    expect(await code(store.finalizeRun(a, 'failed', null, 'cancelled'))).toBe('invalid');
    expect(await code(store.finalizeRun(a, 'completed', null, 'failed'))).toBe('invalid');
    const cancelled = await store.finalizeRun(a, 'completed', null, 'cancelled');
    expect(cancelled).toMatchObject({ status: 'completed', outcome: 'cancelled', error: null });
    expect(await store.getRun(a)).toMatchObject({ status: 'completed', outcome: 'cancelled' });
    expect(await store.finalizeRun(b, 'failed', 'engine died')).toMatchObject({ outcome: 'failed' });
  });

  test('runs: a claim holds a lease the owner renews; cancel is a flag on the run; status versions count up', async ({
    store,
  }) => {
    const threadId = await newThread();
    const a = await newRun(threadId);
    const b = await newRun(threadId);
    expect(await store.getRun(a)).toMatchObject({
      statusVersion: 1,
      leaseUntil: null,
      cancelRequestedAt: null,
    });
    const before = Date.now();
    const claimed = await store.claimQueuedRun('owner-1', 60_000);
    expect(claimed).toMatchObject({ runId: a, statusVersion: 2 });
    expect(Date.parse(claimed?.leaseUntil ?? '')).toBeGreaterThanOrEqual(before + 59_000);
    await store.claimRun(b, 'owner-2', 60_000);
    await store.requestCancel(a);
    expect((await store.getRun(a))?.cancelRequestedAt).not.toBeNull();
    expect(await store.renewRunLeases('owner-1', 120_000)).toEqual([{ runId: a, cancelRequested: true }]);
    expect(Date.parse((await store.getRun(a))?.leaseUntil ?? '')).toBeGreaterThanOrEqual(before + 119_000);
    expect(await store.renewRunLeases('owner-2', 60_000)).toEqual([{ runId: b, cancelRequested: false }]);
    expect(await store.listHeldRuns('owner-1')).toEqual([{ runId: a, cancelRequested: true }]);
    expect(await store.listExpiredRuns()).toEqual([]);
    // Released (shutdown): expired at once, so anyone reclaims it; the other owner's run is untouched.
    expect(await store.releaseRunLeases('owner-1')).toBe(1);
    expect((await store.listExpiredRuns()).map((r) => r.runId)).toEqual([a]);
    expect(await store.takeExpiredRun(b, 'owner-3', 60_000)).toBeNull();
    const taken = await store.takeExpiredRun(a, 'owner-3', 60_000);
    expect(taken).toMatchObject({ runId: a, ownerId: 'owner-1' });
    expect(await store.takeExpiredRun(a, 'owner-4', 60_000)).toBeNull();
    // The lost owner learns it no longer holds the run.
    expect(await store.renewRunLeases('owner-1', 60_000)).toEqual([]);
    const settled = await store.finalizeRun(a, 'failed', 'lost');
    expect(settled).toMatchObject({ statusVersion: 3, leaseUntil: null });
    expect(await store.getRun(a)).toMatchObject({ statusVersion: 3, leaseUntil: null });
    // A cancel of a settled run is recorded as a command but flags nothing.
    await store.finalizeRun(b, 'completed');
    await store.requestCancel(b);
    expect((await store.getRun(b))?.cancelRequestedAt).toBeNull();
    // A queued run cancelled before its claim: the claim carries the flag.
    const q = await newRun(threadId);
    await store.requestCancel(q);
    expect((await store.claimRun(q, 'owner-5', 1000))?.cancelRequestedAt).not.toBeNull();
  });

  test('runs: of several processes racing to reclaim an expired run, exactly one gets each run', async ({
    store,
    fx,
  }) => {
    const threadId = await newThread();
    const runs: string[] = [];
    for (let i = 0; i < 6; i++) {
      const runId = await newRun(threadId);
      await store.claimRun(runId, 'dead-owner', 60_000);
      runs.push(runId);
    }
    await fx.execSql("UPDATE runs SET lease_until = '2000-01-01T00:00:00.000Z' WHERE owner_id = ?", [
      'dead-owner',
    ]);
    const peers = [store, await fx.openPeer(), await fx.openPeer(), await fx.openPeer()];
    const wins = await Promise.all(
      peers.flatMap((peer, p) =>
        runs.map(async (runId) =>
          (await peer.takeExpiredRun(runId, `reclaimer-${p}`, 60_000)) ? runId : null,
        ),
      ),
    );
    const won = wins.filter((w): w is string => w !== null);
    expect(won.sort()).toEqual([...runs].sort());
    expect(await store.listExpiredRuns()).toEqual([]);
    for (const runId of runs) expect((await store.getRun(runId))?.ownerId).toMatch(/^reclaimer-/);
  });
}
