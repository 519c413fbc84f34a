import type { CanonicalEvent } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { RECOVERY_PAGE_ROWS, settleLostRun } from '../src/recovery';
import { spyStore } from './helpers/final-pass';
import { threadFixture } from './helpers/thread-fixture';

const at = new Date(0).toISOString();

/**
 * Settling a lost run cancels its open approvals and questions: found by reading the run's latest rows a page
 * at a time, never the whole run at once (a long run's rows took the recovering process past its heap).
 */
describe('settling a lost run reads its rows a page at a time (SQLite)', () => {
  const fx = threadFixture();

  it('cancels exactly the open approvals and questions of a run several pages long', async () => {
    const runId = await fx.newRun();
    let seq = 0;
    const row = (id: string, kind: string, payload: object) => ({
      event: {
        schemaVersion: 1,
        eventId: id,
        seq: ++seq,
        runId,
        threadId: 'th',
        turnId: runId,
        ts: at,
        identity: { provider: 'test' },
        kind,
        payload,
      } as CanonicalEvent,
    });
    const writes = [];
    // Two and a half pages of warnings between the interactions, so they fall on different pages.
    const filler = Math.floor(RECOVERY_PAGE_ROWS * 2.5);
    writes.push(row('a1', 'approval.requested', { approvalId: 'ap1', title: 't', options: [] }));
    writes.push(row('q1', 'question.requested', { questionId: 'qu1', prompt: 'p', questions: [] }));
    for (let i = 0; i < filler; i++)
      writes.push(row(`w${i}`, 'harness.warning', { code: 'c', message: 'm' }));
    writes.push(row('a2', 'approval.requested', { approvalId: 'ap2', title: 't', options: [] }));
    writes.push(row('a1r', 'approval.resolved', { approvalId: 'ap1', outcome: 'cancelled' }));
    writes.push(row('q2', 'question.requested', { questionId: 'qu2', prompt: 'p', questions: [] }));
    writes.push(row('q2r', 'question.resolved', { questionId: 'qu2', outcome: 'declined' }));
    await fx.t.store.appendEvents('th', writes, true);

    const { store, calls } = spyStore(fx.t.store);
    const run = await fx.t.store.getRun(runId);
    if (!run) throw new Error('no run');
    await settleLostRun(store, fx.hub, run, 'engine process lost: test');

    expect(calls.wholeReads).toBe(0);
    expect(calls.rowReads.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...calls.rowReads.map((r) => r.rows))).toBeLessThanOrEqual(RECOVERY_PAGE_ROWS);
    const frames = (await fx.t.store.readFrames(runId)).map((f) => f.frame as Record<string, unknown>);
    const answered = frames.filter(
      (f) => f.harness === 'approval.answered' || f.harness === 'question.answered',
    );
    expect(answered).toEqual([
      { harness: 'approval.answered', approvalId: 'ap2', outcome: 'cancelled', answeredBy: 'system' },
      { harness: 'question.answered', questionId: 'qu1', outcome: 'cancelled', answeredBy: 'system' },
    ]);
    expect((await fx.t.store.getRun(runId))?.status).toBe('failed');
  });
});
