import { randomInt } from 'node:crypto';
import { type CanonicalEvent, SCHEMA_VERSION } from '@agentlane/contract';
import pg from 'pg';
import { expect } from 'vitest';
import { type EventWrite, StoreError } from '../../src/index';
import { PG_URL } from '../pg-available';
import type { SuiteContext } from './context';

/** The engine's own resolution of a request, as its translator writes it. */
function resolution(
  threadId: string,
  runId: string,
  kind: 'approval' | 'question',
  targetId: string,
  seq: number,
): EventWrite {
  const event = {
    schemaVersion: SCHEMA_VERSION,
    eventId: `${runId}:${kind}.resolved:${targetId}`,
    seq,
    runId,
    threadId,
    turnId: 'turn_1',
    ts: new Date().toISOString(),
    identity: { provider: 'fake' },
    ...(kind === 'approval'
      ? { kind: 'approval.resolved', payload: { approvalId: targetId, outcome: 'cancelled' } }
      : { kind: 'question.resolved', payload: { questionId: targetId, outcome: 'declined' } }),
  } as CanonicalEvent;
  return { event };
}

/** The StoreError `detail` a promise rejects with (fails the test if it resolves or throws something else). */
async function detailOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('conflict');
    return (error as StoreError).detail;
  }
  throw new Error('expected a StoreError');
}

/** InteractionStore: answers to approvals and questions. */
export function interactionTests(s: SuiteContext): void {
  const { test, newThread, newRun, code } = s;

  test('interactions: first answer wins, pending until delivered', async ({ store }) => {
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

  test('interactions: an answer unlessResolved is refused once the engine resolved the request (already_resolved)', async ({
    store,
  }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const otherRun = await newRun(threadId);
    await store.appendEvents(
      threadId,
      [
        resolution(threadId, runId, 'question', 'q1', 1),
        resolution(threadId, runId, 'approval', 'ap1', 2),
        // Another run's resolution of the same id does not resolve this run's request.
        resolution(threadId, otherRun, 'question', 'q2', 1),
      ],
      true,
    );
    const client = (kind: 'approval' | 'question', targetId: string, answer: Record<string, string>) =>
      store.recordAnswer({ threadId, runId, kind, targetId, answer, unlessResolved: true });
    expect(await detailOf(client('question', 'q1', { outcome: 'declined' }))).toBe('already_resolved');
    expect(await detailOf(client('approval', 'ap1', { outcome: 'cancelled' }))).toBe('already_resolved');
    expect(await store.pendingAnswers(runId)).toEqual([]);
    // Not resolved for this run: recorded.
    const q2 = await client('question', 'q2', { outcome: 'answered', answeredBy: 'u' });
    expect(q2).toMatchObject({ targetId: 'q2', answer: { outcome: 'answered', answeredBy: 'u' } });
    expect(q2).not.toHaveProperty('unlessResolved');
    // The harness's own answer (no unlessResolved: the approval timeout's cancellation) still releases a turn
    // waiting for a request its engine resolved.
    const system = await store.recordAnswer({
      threadId,
      runId,
      kind: 'question',
      targetId: 'q1',
      answer: { outcome: 'cancelled', answeredBy: 'system' },
    });
    expect((await store.pendingAnswers(runId)).map((a) => a.answerId)).toEqual([
      q2.answerId,
      system.answerId,
    ]);
  });

  test('interactions: the answer recorded first wins over a later resolution; its repeat (canonical JSON) is returned', async ({
    store,
  }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const first = await store.recordAnswer({
      threadId,
      runId,
      kind: 'question',
      targetId: 'q1',
      answer: { outcome: 'answered', choiceIds: ['a', 'b'], answeredBy: 'u' },
      unlessResolved: true,
    });
    // Its delivery resolves the request on the stream.
    await store.appendEvents(threadId, [resolution(threadId, runId, 'question', 'q1', 1)], true);
    // The same answer with its keys in another order is the same answer: returned, not refused.
    expect(
      await store.recordAnswer({
        threadId,
        runId,
        kind: 'question',
        targetId: 'q1',
        answer: { answeredBy: 'u', choiceIds: ['a', 'b'], outcome: 'answered' },
        unlessResolved: true,
      }),
    ).toEqual(first);
    const other = (answer: Record<string, unknown>, unlessResolved?: boolean) =>
      store.recordAnswer({
        threadId,
        runId,
        kind: 'question',
        targetId: 'q1',
        answer: answer as never,
        ...(unlessResolved ? { unlessResolved } : {}),
      });
    expect(await detailOf(other({ outcome: 'answered', choiceIds: ['b', 'a'], answeredBy: 'u' }, true))).toBe(
      'answered_differently',
    );
    // The harness's own cancellation loses to it too, and the recorded answer is kept.
    expect(await detailOf(other({ outcome: 'cancelled', answeredBy: 'system' }))).toBe(
      'answered_differently',
    );
    expect(await store.pendingAnswers(runId)).toEqual([first]);
  });

  test('interactions: concurrent different answers from two stores: exactly one is recorded', async ({
    store,
    fx,
  }) => {
    const peer = await fx.openPeer();
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? peer : store).recordAnswer({
          threadId,
          runId,
          kind: 'approval',
          targetId: 'ap1',
          answer: { outcome: 'selected', optionId: `o${i}` },
          unlessResolved: true,
        }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as StoreError).detail).toBe('answered_differently');
    expect(await store.pendingAnswers(runId)).toEqual([won[0]?.value]);
  });

  test('interactions: an answer racing a resolution being committed waits for it and is refused (PostgreSQL)', async ({
    store,
    fx,
  }) => {
    // SQLite has one writer at a time: a transaction never reads around another one in progress.
    if (fx.dialect !== 'postgres') return;
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const key = randomInt(1, 2 ** 31 - 1);
    const holder = new pg.Client({ connectionString: PG_URL });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [key]);
      // An append of the engine's resolution, as the group commit writes it: the thread's head locked, the row
      // inserted, the head moved; it then waits (on the advisory lock the test holds) before committing.
      const write = resolution(threadId, runId, 'question', 'q1', 1);
      const text = (v: string) => `'${v.replaceAll("'", "''")}'`;
      const appending = fx.execSql(`DO $$ BEGIN
        PERFORM head FROM thread_heads WHERE thread_id = ${text(threadId)} FOR UPDATE;
        INSERT INTO canonical_events (thread_id, delivery_seq, event_id, revision, run_id, seq, kind,
          schema_version, event, content_hash, provisional, namespace, created_at)
        VALUES (${text(threadId)}, 1, ${text(write.event.eventId)}, 1, ${text(runId)}, 1, 'question.resolved',
          ${SCHEMA_VERSION}, ${text(JSON.stringify(write.event))}, '', 1, NULL, ${text(write.event.ts)});
        UPDATE thread_heads SET head = 1 WHERE thread_id = ${text(threadId)};
        PERFORM pg_advisory_xact_lock(${key});
      END $$`);
      const appender = await waitForRow<{ pid: number }>(
        holder,
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND NOT granted",
        [key],
      );
      let settled = false;
      const answering = store
        .recordAnswer({
          threadId,
          runId,
          kind: 'question',
          targetId: 'q1',
          answer: { outcome: 'answered', choiceIds: ['a'], answeredBy: 'u' },
          unlessResolved: true,
        })
        .finally(() => {
          settled = true;
        });
      answering.catch(() => undefined);
      // The answer's transaction queues behind the uncommitted append (it does not read around it).
      await waitForRow(
        holder,
        'SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
        [appender.pid],
        () => settled,
      );
      expect(settled).toBe(false);
      await holder.query('SELECT pg_advisory_unlock($1)', [key]);
      await appending;
      expect(await detailOf(answering)).toBe('already_resolved');
      expect(await store.pendingAnswers(runId)).toEqual([]);
    } finally {
      await holder.end();
    }
  });
}

/** Polls `sql` until it returns a row (or `stop` says to give up); the test's timeout bounds it. */
async function waitForRow<T>(
  client: pg.Client,
  sql: string,
  params: unknown[],
  stop: () => boolean = () => false,
): Promise<T> {
  for (;;) {
    const { rows } = await client.query(sql, params);
    if (rows[0] || stop()) return rows[0] as T;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
