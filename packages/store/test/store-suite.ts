import { createHash, randomUUID } from 'node:crypto';
import { type CanonicalEvent, type JsonValue, noCapabilities, SCHEMA_VERSION } from '@agentlane/contract';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EventWrite, type Store, StoreError } from '../src/index';
import { contentHash } from '../src/sql/events';
import type { SqlStoreOptions } from '../src/sql/sql-store';

/** One isolated, migrated, empty store plus the backdoors the suite needs. */
export interface StoreFixture {
  store: Store;
  /** Rewrites one frame row in place with plain SQL, bypassing the store (the watermark must catch it). */
  rewriteFrame(runId: string, nativeSeq: number, frame: JsonValue): Promise<void>;
  /** Which SQL the raw statements of the suite speak. */
  dialect: 'sqlite' | 'postgres';
  /** Runs one statement directly on the database, bypassing the store (`?` placeholders). */
  execSql(sql: string, params?: (string | number | null)[]): Promise<void>;
  /** Another store on the same database: its own connections, as a second process would have. */
  openPeer(options?: SqlStoreOptions): Promise<Store>;
  /** Closes everything the fixture opened and removes its data (temp dir, schema). */
  dispose(): Promise<void>;
}

export interface StoreSuiteOptions {
  /** Known gaps of a backend: test name → reason. Printed, never silent. */
  skips?: Record<string, string>;
}

/**
 * The conformance suite every Store backend passes, in the spirit of LangGraph's checkpoint-validation:
 * a backend plugs in with an initializer; a known gap is a declared skip with a printed reason.
 */
export function storeSuite(
  backend: string,
  init: () => Promise<StoreFixture>,
  options: StoreSuiteOptions = {},
): void {
  describe(`Store conformance: ${backend}`, () => {
    let fx: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fx = await init();
      store = fx.store;
    });
    afterEach(async () => {
      await fx.dispose();
    });

    const test = (name: string, fn: () => Promise<void>): void => {
      const reason = options.skips?.[name];
      if (reason) {
        console.info(`[store suite: ${backend}] skipped "${name}": ${reason}`);
        it.skip(`${name} (declared gap: ${reason})`, fn);
      } else {
        it(name, fn);
      }
    };

    const newThread = async (engine = 'fake'): Promise<string> => {
      const threadId = `thr_${randomUUID()}`;
      await store.createThread({ threadId, engine, title: null, workDir: null, metadata: {} });
      return threadId;
    };

    const newRun = async (threadId: string): Promise<string> =>
      (await store.createRun({ threadId, prompt: 'hi' })).run.runId;

    const event = (
      threadId: string,
      runId: string,
      seq: number,
      delta = `d${seq}`,
      eventId?: string,
    ): EventWrite => {
      const e: CanonicalEvent = {
        schemaVersion: SCHEMA_VERSION,
        eventId: eventId ?? `${runId}:${seq}`,
        seq,
        runId,
        threadId,
        turnId: 'turn_1',
        ts: new Date().toISOString(),
        identity: { provider: 'fake' },
        kind: 'message.delta',
        payload: { messageId: 'm1', partId: 'p1', delta },
      };
      return { event: e };
    };

    const code = async (promise: Promise<unknown>): Promise<string> => {
      try {
        await promise;
      } catch (error) {
        expect(error).toBeInstanceOf(StoreError);
        return (error as StoreError).code;
      }
      throw new Error('expected a StoreError');
    };

    test('migrate twice is a no-op', async () => {
      await store.migrate();
      const threadId = await newThread();
      await store.migrate();
      expect(await store.getThread(threadId)).not.toBeNull();
    });

    test('migrations: versions are recorded; a database newer than the code is refused', async () => {
      await fx.execSql(
        "INSERT INTO store_migrations (version, name, applied_at) VALUES (999, 'from the future', 'x')",
      );
      expect(await code(store.migrate())).toBe('unavailable');
    });

    test('canonical_events refuses an UPDATE down to the database', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      await store.appendEvents(threadId, [event(threadId, runId, 1)], true);
      await expect(
        fx.execSql("UPDATE canonical_events SET kind = 'tampered' WHERE thread_id = ?", [threadId]),
      ).rejects.toThrow(/append-only/);
      expect((await store.readEvents(threadId, 0, 10))[0]?.kind).toBe('message.delta');
    });

    test('canonical_events refuses a DELETE outside deleteThread, and a REPLACE-style rewrite', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      await store.appendEvents(threadId, [event(threadId, runId, 1)], true);
      await expect(
        fx.execSql('DELETE FROM canonical_events WHERE thread_id = ?', [threadId]),
      ).rejects.toThrow(/append-only/);
      // Copies the stored row under its own key with another kind: SQLite's INSERT OR REPLACE would delete
      // and rewrite it, PostgreSQL's ON CONFLICT DO UPDATE is an UPDATE.
      const columns =
        'thread_id, delivery_seq, event_id, revision, run_id, seq, kind, schema_version, event, content_hash, provisional, namespace, created_at';
      const copy = `SELECT thread_id, delivery_seq, event_id, revision, run_id, seq, 'tampered', schema_version, event, content_hash, provisional, namespace, created_at FROM canonical_events WHERE thread_id = ?`;
      const rewrite =
        fx.dialect === 'sqlite'
          ? `INSERT OR REPLACE INTO canonical_events (${columns}) ${copy}`
          : `INSERT INTO canonical_events (${columns}) ${copy} ON CONFLICT (thread_id, delivery_seq) DO UPDATE SET kind = 'tampered'`;
      await expect(fx.execSql(rewrite, [threadId])).rejects.toThrow(/append-only/);
      expect((await store.readEvents(threadId, 0, 10)).map((r) => r.kind)).toEqual(['message.delta']);
      // The store's own deletion still works, and leaves no grant behind.
      await store.deleteThread(threadId);
      expect(await store.readEvents(threadId, 0, 10)).toEqual([]);
      const other = await newThread();
      const otherRun = await newRun(other);
      await store.appendEvents(other, [event(other, otherRun, 1)], true);
      await expect(fx.execSql('DELETE FROM canonical_events WHERE thread_id = ?', [other])).rejects.toThrow(
        /append-only/,
      );
    });

    test('listThreads with threadIds filters before paging: a scoped page never names another thread', async () => {
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

    test('property: any sequence of appends gives contiguous deliverySeqs and revisions 1..n per eventId', async () => {
      const write = fc.record({
        id: fc.integer({ min: 0, max: 4 }),
        content: fc.integer({ min: 0, max: 2 }),
      });
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(write, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }),
          async (calls) => {
            const threadId = await newThread();
            const runId = await newRun(threadId);
            // The model: calls are applied in the order they were issued (the write queue keeps that order).
            const latest = new Map<number, { revision: number; content: number }>();
            const expected: [string, number, string][] = [];
            for (const call of calls) {
              for (const w of call) {
                const seen = latest.get(w.id);
                if (seen?.content === w.content) continue;
                const revision = (seen?.revision ?? 0) + 1;
                latest.set(w.id, { revision, content: w.content });
                expected.push([`${runId}:${w.id}`, revision, `c${w.content}`]);
              }
            }
            await Promise.all(
              calls.map((call) =>
                store.appendEvents(
                  threadId,
                  call.map((w) => event(threadId, runId, w.id, `c${w.content}`, `${runId}:${w.id}`)),
                  true,
                ),
              ),
            );
            const rows = await store.readEvents(threadId, 0, 1000);
            expect(rows.map((r) => r.deliverySeq)).toEqual(expected.map((_, i) => i + 1));
            expect(
              rows.map((r) => [r.eventId, r.revision, (r.event.payload as { delta: string }).delta]),
            ).toEqual(expected);
            const newest = await store.latestEvents({ threadId });
            expect(newest.map((r) => r.revision).sort()).toEqual(
              [...latest.values()].map((v) => v.revision).sort(),
            );
          },
        ),
        { numRuns: 12 },
      );
    });

    test('threads: create, get, update, list with filters and cursor, delete', async () => {
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
      expect(
        (await store.listThreads({ limit: 10, search: 'title 3%' })).items.map((t) => t.threadId),
      ).toEqual([ids[3]]);
      expect((await store.listThreads({ limit: 10, search: '_' })).items).toHaveLength(0);
      expect(await code(store.listThreads({ limit: 10, cursor: 'garbage' }))).toBe('invalid');

      await store.deleteThread(ids[0] ?? '');
      expect(await store.getThread(ids[0] ?? '')).toBeNull();
      await store.deleteThread(ids[0] ?? '');
    });

    test('deleteThread removes its frames and canonical rows; appends to it afterwards are refused', async () => {
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

    test('sessions: generation starts at 1 and increases only when the binding changes', async () => {
      const threadId = await newThread();
      expect(await store.getSession(threadId)).toBeNull();
      const base = {
        threadId,
        provider: 'fake',
        engine: 'fake',
        nativeSessionId: 'n1',
        runtimeBinding: { pid: 1 },
        protocolVersion: '1',
        capabilities: noCapabilities(),
      };
      expect((await store.bindSession(base)).generation).toBe(1);
      expect((await store.bindSession({ ...base, protocolVersion: '2' })).generation).toBe(1);
      expect((await store.bindSession({ ...base, nativeSessionId: 'n2' })).generation).toBe(2);
      const third = await store.bindSession({ ...base, nativeSessionId: 'n2', runtimeBinding: { pid: 2 } });
      expect(third.generation).toBe(3);
      expect(await store.getSession(threadId)).toMatchObject({
        generation: 3,
        nativeSessionId: 'n2',
        protocolVersion: '1',
      });
      expect(await code(store.bindSession({ ...base, threadId: 'missing' }))).toBe('not_found');

      expect(await code(store.createRun({ threadId, prompt: 'p', expectedGeneration: 2 }))).toBe(
        'stale_generation',
      );
      expect((await store.createRun({ threadId, prompt: 'p', expectedGeneration: 3 })).created).toBe(true);
    });

    test('runs: run.create is idempotent by key; same key + other body is an idempotency_conflict', async () => {
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

    test('runs: claim, cancel command, finalize enqueues canonicalization in the same transaction', async () => {
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

    test('runs: a cancelled run settles completed with outcome cancelled, never as a failure', async () => {
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

    test('runs: a claim holds a lease the owner renews; cancel is a flag on the run; status versions count up', async () => {
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

    test('runs: of several processes racing to reclaim an expired run, exactly one gets each run', async () => {
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

    test('completions: every completion record of a thread in one read', async () => {
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

    test('events: deliverySeq per thread, identical re-emission is a no-op, changed content is a revision', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      const first = await store.appendEvents(
        threadId,
        [event(threadId, runId, 1), event(threadId, runId, 2)],
        true,
      );
      expect(first.inserted.map((r) => [r.deliverySeq, r.revision])).toEqual([
        [1, 1],
        [2, 1],
      ]);
      expect(first.unchanged).toBe(0);
      // Same content (a new ts only): nothing inserted.
      const same = await store.appendEvents(threadId, [event(threadId, runId, 1)], true);
      expect(same).toEqual({ inserted: [], unchanged: 1 });
      const changed = await store.appendEvents(threadId, [event(threadId, runId, 1, 'changed')], true);
      expect(changed.inserted.map((r) => [r.deliverySeq, r.eventId, r.revision])).toEqual([
        [3, `${runId}:1`, 2],
      ]);
      // Within one call, a repeated eventId is compared with the row written just before.
      const twice = await store.appendEvents(
        threadId,
        [event(threadId, runId, 3, 'a'), event(threadId, runId, 3, 'a'), event(threadId, runId, 3, 'b')],
        true,
      );
      expect(twice.inserted.map((r) => r.revision)).toEqual([1, 2]);
      expect(twice.unchanged).toBe(1);

      const rows = await store.readEvents(threadId, 0, 100);
      expect(rows.map((r) => r.deliverySeq)).toEqual([1, 2, 3, 4, 5]);
      expect(rows[2]?.event).toMatchObject({ payload: { delta: 'changed' } });
      expect(rows.every((r) => r.provisional && r.kind === 'message.delta' && r.schemaVersion === 1)).toBe(
        true,
      );
      expect(await store.readEvents(threadId, 3, 1)).toHaveLength(1);
      expect(await store.headDeliverySeq(threadId)).toBe(5);
      expect(await store.headDeliverySeq('missing')).toBe(0);

      const latest = await store.latestEvents({ threadId });
      expect(latest.map((r) => [r.eventId, r.revision])).toEqual([
        [`${runId}:1`, 2],
        [`${runId}:2`, 1],
        [`${runId}:3`, 2],
      ]);
      const other = await newRun(threadId);
      await store.appendEvents(threadId, [{ ...event(threadId, other, 1), namespace: ['child-1'] }], false);
      const ofOther = await store.latestEvents({ threadId, runId: other });
      expect(ofOther).toHaveLength(1);
      expect(ofOther[0]).toMatchObject({ deliverySeq: 6, namespace: ['child-1'], provisional: false });
      expect((await store.readEvents(threadId, 5, 10))[0]?.namespace).toEqual(['child-1']);
    });

    test('events: a row that carries its content hash (written before hashes were derived) is compared by it', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      const original = event(threadId, runId, 1);
      // The stored text says something else: only the stored hash can make the re-emission a no-op.
      const text = JSON.stringify(event(threadId, runId, 1, 'other text').event);
      await fx.execSql(
        `INSERT INTO canonical_events (thread_id, delivery_seq, event_id, revision, run_id, seq, kind,
          schema_version, event, content_hash, provisional, namespace, created_at)
         VALUES (?, 1, ?, 1, ?, ?, 'message.delta', 1, ?, ?, 1, NULL, ?)`,
        [
          threadId,
          original.event.eventId,
          runId,
          original.event.seq,
          text,
          contentHash(original),
          new Date().toISOString(),
        ],
      );
      await fx.execSql('UPDATE thread_heads SET head = 1 WHERE thread_id = ?', [threadId]);
      expect(await store.appendEvents(threadId, [event(threadId, runId, 1)], true)).toEqual({
        inserted: [],
        unchanged: 1,
      });
      const changed = await store.appendEvents(threadId, [event(threadId, runId, 1, 'changed')], true);
      expect(changed.inserted.map((r) => [r.deliverySeq, r.revision])).toEqual([[2, 2]]);
    });

    test('events: a firstWrite is stored as revision 1; a wrong claim fails alone and stores nothing', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      const claimed = (n: number, delta?: string): EventWrite => ({
        ...event(threadId, runId, n, delta),
        firstWrite: true,
      });
      const first = await store.appendEvents(threadId, [claimed(1), claimed(2)], true);
      expect(first.inserted.map((r) => [r.deliverySeq, r.revision])).toEqual([
        [1, 1],
        [2, 1],
      ]);
      // The same id claimed twice in one call: the second is compared with the first, as without the claim.
      const twice = await store.appendEvents(threadId, [claimed(3, 'a'), claimed(3, 'b')], true);
      expect(twice.inserted.map((r) => [r.eventId, r.revision])).toEqual([
        [`${runId}:3`, 1],
        [`${runId}:3`, 2],
      ]);
      // A wrong claim (eventId 1 is stored) next to a good call issued in the same tick: only it fails.
      const [wrong, good] = await Promise.allSettled([
        store.appendEvents(threadId, [claimed(4), claimed(1, 'changed')], true),
        store.appendEvents(threadId, [event(threadId, runId, 5)], true),
      ]);
      expect(wrong.status).toBe('rejected');
      expect(String((wrong as PromiseRejectedResult).reason)).toContain('firstWrite');
      expect(good.status === 'fulfilled' && good.value.inserted.map((r) => r.deliverySeq)).toEqual([5]);
      const rows = await store.readEvents(threadId, 0, 100);
      expect(rows.map((r) => [r.deliverySeq, r.eventId, r.revision])).toEqual([
        [1, `${runId}:1`, 1],
        [2, `${runId}:2`, 1],
        [3, `${runId}:3`, 1],
        [4, `${runId}:3`, 2],
        [5, `${runId}:5`, 1],
      ]);
      // Without the claim the same change is a revision.
      const changed = await store.appendEvents(threadId, [event(threadId, runId, 1, 'changed')], true);
      expect(changed.inserted.map((r) => [r.deliverySeq, r.revision])).toEqual([[6, 2]]);
    });

    test('events: per-run reads find every row of a run whose rows interleave with another run of the thread', async () => {
      const threadId = await newThread();
      const a = await newRun(threadId);
      const b = await newRun(threadId);
      // b writes first, then a and b take turns; a's rows are 2 and 4, b's 1, 3 and 5.
      for (const [runId, n] of [
        [b, 1],
        [a, 1],
        [b, 2],
        [a, 2],
        [b, 3],
      ] as const) {
        await store.appendEvents(threadId, [event(threadId, runId, n)], true);
      }
      // A revision of a's first event comes last: the latest of it is row 6.
      await store.appendEvents(threadId, [event(threadId, a, 1, 'changed')], true);
      expect(
        (await store.latestEvents({ threadId, runId: a })).map((r) => [r.eventId, r.deliverySeq]),
      ).toEqual([
        [`${a}:1`, 6],
        [`${a}:2`, 4],
      ]);
      expect((await store.latestEvents({ threadId, runId: b })).map((r) => r.deliverySeq)).toEqual([1, 3, 5]);
      // Completion covers up to the run's last row.
      await store.claimRun(a, 'me');
      await store.finalizeRun(a, 'completed');
      const record = await store.completeCanonicalization(a, await store.sealSource(a));
      expect(record?.lastDeliverySeq).toBe(6);
    });

    test('events: bad input is refused with a clear error naming the field', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      const bad = event(threadId, runId, 1);
      (bad.event as { eventId: unknown }).eventId = 42;
      const error = await store.appendEvents(threadId, [bad], true).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe('invalid');
      expect((error as StoreError).message).toContain('eventId');
      expect(await code(store.appendEvents(threadId, [event('other-thread', runId, 1)], true))).toBe(
        'invalid',
      );
      expect(await code(store.appendEvents('missing', [event('missing', runId, 1)], true))).toBe('not_found');
      expect(await code(store.readEvents(threadId, 0, 0))).toBe('invalid');
      // The failures above wasted no deliverySeq.
      const ok = await store.appendEvents(threadId, [event(threadId, runId, 1)], true);
      expect(ok.inserted[0]?.deliverySeq).toBe(1);
    });

    test('group commit: concurrent appends each resolve after their rows are committed, seqs contiguous', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      const reader = await fx.openPeer();
      const visibleAtResolve: boolean[] = [];
      const calls = Array.from({ length: 40 }, (_, i) =>
        store
          .appendEvents(
            threadId,
            [event(threadId, runId, i * 2 + 1), event(threadId, runId, i * 2 + 2)],
            true,
          )
          .then(async (result) => {
            const last = result.inserted[1]?.deliverySeq ?? -1;
            // Another connection must already see the rows: resolved means committed.
            const seen = await reader.readEvents(threadId, last - 1, 1);
            visibleAtResolve.push(seen[0]?.deliverySeq === last);
            return result;
          }),
      );
      const results = await Promise.all(calls);
      expect(visibleAtResolve.every(Boolean)).toBe(true);
      const seqs = results.flatMap((r) => r.inserted.map((row) => row.deliverySeq)).sort((x, y) => x - y);
      expect(seqs).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
      for (const r of results)
        expect((r.inserted[1]?.deliverySeq ?? 0) - (r.inserted[0]?.deliverySeq ?? 0)).toBe(1);
    });

    test('deliverySeq: several connections writing one thread never reuse or reorder, listeners see no gap', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      const writers = [store, await fx.openPeer(), await fx.openPeer(), await fx.openPeer()];
      const observer = await fx.openPeer();
      const heads: number[] = [];
      let cursor = 0;
      const gaps: string[] = [];
      let reading = Promise.resolve();
      // Every notification: everything up to the announced head must already be readable, in order.
      const stop = observer.onCommitted((t, head) => {
        if (t !== threadId) return;
        heads.push(head);
        reading = reading.then(async () => {
          const rows = await observer.readEvents(threadId, cursor, 100_000);
          for (const row of rows) {
            if (row.deliverySeq !== cursor + 1) gaps.push(`${cursor} -> ${row.deliverySeq}`);
            cursor = row.deliverySeq;
          }
          if (cursor < head) gaps.push(`head ${head} announced but only ${cursor} readable`);
        });
      });
      const perWriter = 15;
      await Promise.all(
        writers.map(async (w, wi) => {
          for (let i = 0; i < perWriter; i++) {
            await w.appendEvents(
              threadId,
              [
                event(threadId, runId, 1, 'x', `w${wi}-${i}-a`),
                event(threadId, runId, 2, 'y', `w${wi}-${i}-b`),
              ],
              true,
            );
          }
        }),
      );
      const total = writers.length * perWriter * 2;
      const rows = await store.readEvents(threadId, 0, 10_000);
      expect(rows.map((r) => r.deliverySeq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      expect(await store.headDeliverySeq(threadId)).toBe(total);
      for (let i = 0; i < 100 && heads[heads.length - 1] !== total; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(heads[heads.length - 1]).toBe(total);
      await reading;
      stop();
      expect(gaps).toEqual([]);
    });

    test('onCommitted: in-process listeners hear each commit with the new head; unsubscribe stops them', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      const heard: [string, number][] = [];
      const stop = store.onCommitted((t, head) => heard.push([t, head]));
      await store.appendEvents(threadId, [event(threadId, runId, 1), event(threadId, runId, 2)], true);
      expect(heard).toEqual([[threadId, 2]]);
      await store.appendEvents(threadId, [event(threadId, runId, 1)], true);
      expect(heard).toHaveLength(1);
      stop();
      await store.appendEvents(threadId, [event(threadId, runId, 3)], true);
      expect(heard).toHaveLength(1);
    });

    test('onCommitted: commits of another store on the same database wake this one', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      const peer = await fx.openPeer();
      const heard: number[] = [];
      const stop = store.onCommitted((t, head) => {
        if (t === threadId) heard.push(head);
      });
      // Give the listening side (LISTEN connection, poller) time to start.
      await new Promise((r) => setTimeout(r, 200));
      await peer.appendEvents(threadId, [event(threadId, runId, 1)], true);
      for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      stop();
      expect(heard).toEqual([1]);
    });

    test('signals: another store on the same database hears a broadcast signal; the sender does not', async () => {
      const peer = await fx.openPeer();
      const heardByPeer: [string, unknown][] = [];
      const heardBySender: unknown[] = [];
      const stopPeer = peer.onSignal((t, signal) => heardByPeer.push([t, signal]));
      const stopSelf = store.onSignal((_t, signal) => heardBySender.push(signal));
      await new Promise((r) => setTimeout(r, 200));
      const signal = { type: 'run.status', threadId: 'thr with space', runId: 'r1', status: 'running' };
      await store.broadcastSignal('thr with space', signal);
      for (let i = 0; i < 100 && heardByPeer.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      stopPeer();
      stopSelf();
      expect(heardByPeer).toEqual([['thr with space', signal]]);
      expect(heardBySender).toEqual([]);
    });

    test('source lane: native seqs, seal, late frames refused and recorded', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      const at = new Date().toISOString();
      const first = await store.appendFrames(runId, [
        { receivedAt: at, frame: { a: 1 } },
        { receivedAt: at, frame: [1, 'two'] },
      ]);
      expect(first.map((f) => f.nativeSeq)).toEqual([1, 2]);
      const concurrent = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.appendFrames(runId, [{ receivedAt: at, frame: { i } }])),
      );
      expect(concurrent.map((c) => c[0]?.nativeSeq).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual([
        3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
      ]);
      expect((await store.readFrames(runId)).map((f) => f.nativeSeq)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
      ]);
      expect((await store.readFrames(runId, 10)).map((f) => f.frame)).toEqual(
        (await store.readFrames(runId)).slice(10).map((f) => f.frame),
      );
      expect((await store.readFrames(runId))[1]?.frame).toEqual([1, 'two']);

      const open = await store.readWatermark(runId);
      expect(open).toMatchObject({ maxNativeSeq: 12, sealed: false });
      const sealed = await store.sealSource(runId);
      expect(sealed).toEqual({ ...open, sealed: true });
      expect(await store.sealSource(runId)).toEqual(sealed);

      expect(await code(store.appendFrames(runId, [{ receivedAt: at, frame: { late: true } }]))).toBe(
        'source_sealed',
      );
      const refused = await store.listRefusedFrames(runId);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ frame: { late: true }, receivedAt: at });
      expect(refused[0]?.reason).toMatch(/sealed/);
      expect(await store.readWatermark(runId)).toEqual(sealed);

      expect(await code(store.appendFrames('run_missing', [{ receivedAt: at, frame: 1 }]))).toBe('not_found');
      expect(await code(store.readWatermark('run_missing'))).toBe('not_found');
      expect(await code(store.appendFrames(runId, [{ receivedAt: 5 as unknown as string, frame: 1 }]))).toBe(
        'invalid',
      );
    });

    test('raw sidecar: inline up to the limit, larger raw as an artifact, omitted past the run budget', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      // A store with small bounds on the same database: 16 bytes inline, 64 bytes per run.
      const small = await fx.openPeer({ rawSidecar: { inlineMaxBytes: 16, maxBytesPerRun: 64 } });
      const at = new Date().toISOString();
      const big = 'x'.repeat(40);
      const bytes = new Uint8Array([0, 255, 10, 13]);
      await small.appendFrames(runId, [
        { receivedAt: at, frame: { n: 1 }, raw: '{"n":1}\n' },
        { receivedAt: at, frame: { n: 2 } },
        { receivedAt: at, frame: { n: 3 }, raw: big },
        { receivedAt: at, frame: { n: 4 }, raw: bytes },
      ]);
      // 8 + 40 + 4 = 52 bytes kept; 20 more would pass 64: omitted, size and sha256 still recorded.
      await small.appendFrames(runId, [{ receivedAt: at, frame: { n: 5 }, raw: 'y'.repeat(20) }]);
      const raw = await store.readRawFrames(runId);
      expect(raw.map((r) => [r.nativeSeq, r.storage, r.bytes])).toEqual([
        [1, 'inline', 8],
        [3, 'artifact', 40],
        [4, 'inline', 4],
        [5, 'omitted', 20],
      ]);
      expect(Buffer.from(raw[0]?.content ?? []).toString('utf8')).toBe('{"n":1}\n');
      expect([...(raw[2]?.content ?? [])]).toEqual([0, 255, 10, 13]);
      expect(raw[3]?.content).toBeNull();
      expect(raw[3]?.sha256).toBe(createHash('sha256').update('y'.repeat(20)).digest('hex'));
      const artifact = await store.getArtifact(raw[1]?.artifactId ?? '');
      expect(Buffer.from(artifact?.content ?? []).toString('utf8')).toBe(big);
      expect(raw[1]?.sha256).toBe(artifact?.ref.sha256);
      // The budget is the run's, across calls and stores: it is kept on the locked lane row.
      await small.appendFrames(runId, [{ receivedAt: at, frame: { n: 6 }, raw: 'z'.repeat(12) }]);
      expect((await store.readRawFrames(runId, 5)).map((r) => r.storage)).toEqual(['inline']);
      // The sidecar is evidence beside the frames: the parsed frames and the watermark are unchanged by it.
      expect((await store.readFrames(runId)).map((f) => f.frame)).toEqual(
        [1, 2, 3, 4, 5, 6].map((n) => ({ n })),
      );
      expect(
        await code(store.appendFrames(runId, [{ receivedAt: at, frame: 1, raw: 5 as unknown as string }])),
      ).toBe('invalid');
      await store.deleteThread(threadId);
      expect(await store.readRawFrames(runId)).toEqual([]);
    });

    test('completion: written only while the watermark holds; an in-place frame rewrite is caught', async () => {
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

    test('outbox: leases exclude other workers until they expire; release records the error', async () => {
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

    test('interactions: first answer wins, pending until delivered', async () => {
      const threadId = await newThread();
      const runId = await newRun(threadId);
      const answer = await store.recordAnswer({
        threadId,
        runId,
        kind: 'approval',
        targetId: 'ap1',
        answer: { optionId: 'allow' },
      });
      expect(answer).toMatchObject({ kind: 'approval', targetId: 'ap1', deliveredAt: null });
      expect(
        await store.recordAnswer({
          threadId,
          runId,
          kind: 'approval',
          targetId: 'ap1',
          answer: { optionId: 'allow' },
        }),
      ).toEqual(answer);
      expect(
        await code(
          store.recordAnswer({
            threadId,
            runId,
            kind: 'approval',
            targetId: 'ap1',
            answer: { optionId: 'deny' },
          }),
        ),
      ).toBe('conflict');
      const question = await store.recordAnswer({
        threadId,
        runId,
        kind: 'question',
        targetId: 'q1',
        answer: { text: 'yes' },
      });
      expect((await store.pendingAnswers(runId)).map((a) => a.answerId)).toEqual([
        answer.answerId,
        question.answerId,
      ]);
      await store.markAnswerDelivered(answer.answerId);
      await store.markAnswerDelivered(answer.answerId);
      expect((await store.pendingAnswers(runId)).map((a) => a.answerId)).toEqual([question.answerId]);
      expect(await code(store.markAnswerDelivered('ans_missing'))).toBe('not_found');
    });

    test('sync changes: a retried (clientId, version) is ignored; serverSeq follows arrival', async () => {
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

    test('artifacts: content-addressed by sha256 and stored once', async () => {
      const content = new TextEncoder().encode('a large tool output\n'.repeat(1000));
      const ref = await store.putArtifact(content, 'text/plain');
      expect(ref.id).toMatch(/^sha256-[0-9a-f]{64}$/);
      expect(ref).toMatchObject({
        bytes: content.byteLength,
        sha256: ref.id.slice('sha256-'.length),
        contentType: 'text/plain',
      });
      expect(await store.putArtifact(content.slice(), 'text/plain')).toEqual(ref);
      const got = await store.getArtifact(ref.id);
      expect(got?.ref).toEqual(ref);
      expect(Buffer.from(got?.content ?? []).equals(Buffer.from(content))).toBe(true);
      expect(await store.getArtifact(`sha256-${'0'.repeat(64)}`)).toBeNull();
      expect(await store.getArtifact('../../etc/passwd')).toBeNull();
      const empty = await store.putArtifact(new Uint8Array(), 'application/octet-stream');
      expect((await store.getArtifact(empty.id))?.content.byteLength).toBe(0);
    });

    test('chunked artifacts: stored from a stream a chunk at a time, read whole or by ranges, checked against their sha256', async () => {
      const size = 2 * 1024 * 1024 + 777;
      const content = Buffer.alloc(size);
      for (let i = 0; i < size; i++) content[i] = (i * 31 + (i >> 10)) & 0xff;
      const sha256 = createHash('sha256').update(content).digest('hex');
      async function* pieces() {
        for (let at = 0; at < size; at += 123_457) yield content.subarray(at, Math.min(size, at + 123_457));
      }
      const ref = await store.putArtifactStream(pieces(), 'text/plain', sha256);
      expect(ref).toEqual({ id: `sha256-${sha256}`, sha256, bytes: size, contentType: 'text/plain' });
      // Stored once: a second put of the same content writes nothing and answers the same ref.
      expect(await store.putArtifactStream(pieces(), 'text/plain', sha256)).toEqual(ref);
      const read = async (start?: number, end?: number) => {
        const opened = await store.openArtifact(ref.id);
        const out: Buffer[] = [];
        for await (const piece of opened?.read(start, end) ?? []) out.push(Buffer.from(piece));
        return Buffer.concat(out);
      };
      expect((await read()).equals(content)).toBe(true);
      const from = 1024 * 1024 - 3;
      expect((await read(from, from + 5)).equals(content.subarray(from, from + 6))).toBe(true);
      expect((await read(size - 4, size - 1)).equals(content.subarray(size - 4))).toBe(true);
      expect(Buffer.from((await store.getArtifact(ref.id))?.content ?? []).equals(content)).toBe(true);
      // An inline artifact opens the same way.
      const small = await store.putArtifact(new TextEncoder().encode('0123456789'), 'text/plain');
      const opened = await store.openArtifact(small.id);
      const part: Buffer[] = [];
      for await (const piece of opened?.read(2, 4) ?? []) part.push(Buffer.from(piece));
      expect(Buffer.concat(part).toString()).toBe('234');
      // Bytes that do not hash to the sha256 named: nothing is stored.
      const other = 'f'.repeat(64);
      expect(await code(store.putArtifactStream(pieces(), 'text/plain', other))).toBe('invalid');
      expect(await store.openArtifact(`sha256-${other}`)).toBeNull();
      expect(await code(store.putArtifactStream(pieces(), 'text/plain', 'nope'))).toBe('invalid');
    });

    test('deleteThread removes the thread with its runs, events, frames and sessions', async () => {
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
  });
}
