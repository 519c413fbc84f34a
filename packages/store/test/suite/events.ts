import fc from 'fast-check';
import { expect } from 'vitest';
import { type EventWrite, StoreError } from '../../src/index';
import { contentHash } from '../../src/sql/events';
import type { SuiteContext } from './context';

/** EventStore: deliverySeq, revisions, group commit, the append-only table. */
export function eventTests(s: SuiteContext): void {
  const { test, newThread, newRun, event, code } = s;

  test('canonical_events refuses an UPDATE down to the database', async ({ store, fx }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    await store.appendEvents(threadId, [event(threadId, runId, 1)], true);
    await expect(
      fx.execSql("UPDATE canonical_events SET kind = 'tampered' WHERE thread_id = ?", [threadId]),
    ).rejects.toThrow(/append-only/);
    expect((await store.readEvents(threadId, 0, 10))[0]?.kind).toBe('message.delta');
  });

  test('canonical_events refuses a DELETE outside deleteThread, and a REPLACE-style rewrite', async ({
    store,
    fx,
  }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    await store.appendEvents(threadId, [event(threadId, runId, 1)], true);
    await expect(fx.execSql('DELETE FROM canonical_events WHERE thread_id = ?', [threadId])).rejects.toThrow(
      /append-only/,
    );
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
    // The store's own deletion still works (once the run has ended), and leaves no grant behind.
    await store.finalizeRun(runId, 'completed');
    await store.deleteThread(threadId);
    expect(await store.readEvents(threadId, 0, 10)).toEqual([]);
    const other = await newThread();
    const otherRun = await newRun(other);
    await store.appendEvents(other, [event(other, otherRun, 1)], true);
    await expect(fx.execSql('DELETE FROM canonical_events WHERE thread_id = ?', [other])).rejects.toThrow(
      /append-only/,
    );
  });

  test('property: any sequence of appends gives contiguous deliverySeqs and revisions 1..n per eventId', async ({
    store,
  }) => {
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

  test('events: deliverySeq per thread, identical re-emission is a no-op, changed content is a revision', async ({
    store,
  }) => {
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

  test('events: a row that carries its content hash (written before hashes were derived) is compared by it', async ({
    store,
    fx,
  }) => {
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

  test('events: a firstWrite is stored as revision 1; a wrong claim fails alone and stores nothing', async ({
    store,
  }) => {
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

  test("events: latestEventsPage pages one run's latest revisions by their own deliverySeq", async ({
    store,
  }) => {
    const threadId = await newThread();
    const a = await newRun(threadId);
    const b = await newRun(threadId);
    // a: 1..6 written, then 2 and 5 revised (twice for 2), with b's rows in between; b's rows are not a's.
    await store.appendEvents(
      threadId,
      [1, 2, 3].flatMap((n) => [event(threadId, a, n), event(threadId, b, n)]),
      true,
    );
    await store.appendEvents(
      threadId,
      [4, 5, 6].map((n) => event(threadId, a, n)),
      true,
    );
    await store.appendEvents(threadId, [event(threadId, a, 2, 'r2'), event(threadId, b, 1, 'r2')], true);
    await store.appendEvents(
      threadId,
      [{ ...event(threadId, a, 5, 'r2'), namespace: ['child'] }, event(threadId, a, 2, 'r3')],
      true,
    );
    const latest = await store.latestEvents({ threadId, runId: a });
    const byDelivery = [...latest].sort((x, y) => x.deliverySeq - y.deliverySeq);
    expect(byDelivery.map((r) => [r.eventId, r.revision, r.deliverySeq])).toEqual([
      [`${a}:1`, 1, 1],
      [`${a}:3`, 1, 5],
      [`${a}:4`, 1, 7],
      [`${a}:6`, 1, 9],
      [`${a}:5`, 2, 12],
      [`${a}:2`, 3, 13],
    ]);
    for (const limit of [1, 2, 4, 6, 100]) {
      const paged = [];
      for (let after = 0; ; ) {
        const page = await store.latestEventsPage({ threadId, runId: a }, after, limit);
        expect(page.length).toBeLessThanOrEqual(limit);
        paged.push(...page);
        if (page.length < limit) break;
        after = page.at(-1)?.deliverySeq ?? after;
      }
      // The same rows as latestEvents (namespace, payload and all), only in deliverySeq order.
      expect(paged).toEqual(byDelivery);
    }
    expect(await store.latestEventsPage({ threadId, runId: a }, 9, 2)).toEqual(byDelivery.slice(4, 6));
    expect((await store.latestEventsPage({ threadId, runId: b }, 0, 10)).map((r) => r.deliverySeq)).toEqual([
      4, 6, 11,
    ]);
    expect(await store.latestEventsPage({ threadId, runId: 'run_missing' }, 0, 10)).toEqual([]);
    expect(await code(store.latestEventsPage({ threadId, runId: a }, 0, 0))).toBe('invalid');
  });

  test('events: per-run reads find every row of a run whose rows interleave with another run of the thread', async ({
    store,
  }) => {
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
    expect((await store.latestEvents({ threadId, runId: a })).map((r) => [r.eventId, r.deliverySeq])).toEqual(
      [
        [`${a}:1`, 6],
        [`${a}:2`, 4],
      ],
    );
    expect((await store.latestEvents({ threadId, runId: b })).map((r) => r.deliverySeq)).toEqual([1, 3, 5]);
    // Completion covers up to the run's last row.
    await store.claimRun(a, 'me');
    await store.finalizeRun(a, 'completed');
    const record = await store.completeCanonicalization(a, await store.sealSource(a));
    expect(record?.lastDeliverySeq).toBe(6);
  });

  test('events: bad input is refused with a clear error naming the field', async ({ store }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const bad = event(threadId, runId, 1);
    (bad.event as { eventId: unknown }).eventId = 42;
    const error = await store.appendEvents(threadId, [bad], true).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('invalid');
    expect((error as StoreError).message).toContain('eventId');
    expect(await code(store.appendEvents(threadId, [event('other-thread', runId, 1)], true))).toBe('invalid');
    expect(await code(store.appendEvents('missing', [event('missing', runId, 1)], true))).toBe('not_found');
    expect(await code(store.readEvents(threadId, 0, 0))).toBe('invalid');
    // The failures above wasted no deliverySeq.
    const ok = await store.appendEvents(threadId, [event(threadId, runId, 1)], true);
    expect(ok.inserted[0]?.deliverySeq).toBe(1);
  });

  test('group commit: concurrent appends each resolve after their rows are committed, seqs contiguous', async ({
    store,
    fx,
  }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const reader = await fx.openPeer();
    const visibleAtResolve: boolean[] = [];
    const calls = Array.from({ length: 40 }, (_, i) =>
      store
        .appendEvents(threadId, [event(threadId, runId, i * 2 + 1), event(threadId, runId, i * 2 + 2)], true)
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

  test('deliverySeq: several connections writing one thread never reuse or reorder, listeners see no gap', async ({
    store,
    fx,
  }) => {
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
}
