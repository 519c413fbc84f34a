import { StoreError } from '@agentlane/store';
import { afterEach, describe, expect, it } from 'vitest';
import { createLane, DEFAULT_APPROVAL_TIMEOUT_MS, type Lane, SYSTEM_ANSWERER } from '../src';
import { Collector, waitFor } from './helpers/collect';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e) => (e instanceof StoreError ? e.code : String(e)),
  );

describe('approval timeouts: a request nobody answers is cancelled by system and the run goes on', () => {
  let t: TestStore;
  let lane: Lane;

  const open = async (approvalTimeoutMs?: number) => {
    t = await sqliteTestStore();
    lane = createLane({
      store: t.store,
      drivers: [createTestDriver()],
      ownerId: 'p1',
      pollIntervalMs: 20,
      ...(approvalTimeoutMs !== undefined ? { approvalTimeoutMs } : {}),
    });
    await lane.start();
    await t.store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
  };
  afterEach(async () => {
    await lane.stop();
    await t.cleanup();
  });

  it('an unanswered approval and question resolve as cancelled by system; a late answer gets conflict', async () => {
    await open(150);
    const c = new Collector();
    await lane.subscribe('th', 0, c.listener);
    const started = Date.now();
    const { run } = await lane.createRun({ threadId: 'th', prompt: 'approval a1\nquestion q1\ndelta done' });
    await c.until((x) => x.events.some((e) => e.type === 'run.canonicalized'));
    // Two waits of the timeout each, not one forever.
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    const payloads = c.rows().map((r) => ({ type: r.type, payload: r.event.payload }));
    expect(payloads.find((p) => p.type === 'approval.resolved')?.payload).toMatchObject({
      approvalId: 'a1',
      outcome: 'cancelled',
      answeredBy: SYSTEM_ANSWERER,
    });
    expect(payloads.find((p) => p.type === 'question.resolved')?.payload).toMatchObject({
      questionId: 'q1',
      outcome: 'cancelled',
      answeredBy: SYSTEM_ANSWERER,
    });
    // The engine got the cancel, said so and went on: the run completed, it was not cancelled.
    const said = c
      .rows()
      .filter((r) => r.type === 'message.delta')
      .map((r) => (r.event.payload as { delta: string }).delta);
    expect(said).toEqual(['approval a1: cancelled by system', 'question q1: cancelled by system', 'done']);
    const settled = await t.store.getRun(run.runId);
    expect(settled).toMatchObject({ status: 'completed', outcome: 'completed' });
    // Recorded like any answer, so a late one is refused instead of reaching an engine that moved on.
    const answers = await t.store.pendingAnswers(run.runId);
    expect(answers).toEqual([]);
    const late = lane.answerApproval({
      runId: run.runId,
      approvalId: 'a1',
      answer: { outcome: 'selected', optionId: 'allow', answeredBy: 'alice' },
    });
    expect(await code(late)).toBe('conflict');
  });

  it('an answer given within the timeout is the one delivered, and nothing is cancelled later', async () => {
    await open(400);
    const c = new Collector();
    await lane.subscribe('th', 0, c.listener);
    const { run } = await lane.createRun({ threadId: 'th', prompt: 'approval a1\nsleep 600\ndelta done' });
    await waitFor(async () =>
      (await t.store.readFrames(run.runId)).some((f) => (f.frame as { t?: string }).t === 'approval'),
    );
    await lane.answerApproval({
      runId: run.runId,
      approvalId: 'a1',
      answer: { outcome: 'selected', optionId: 'allow', answeredBy: 'alice' },
    });
    await c.until((x) => x.events.some((e) => e.type === 'run.canonicalized'));
    const resolved = c.rows().filter((r) => r.type === 'approval.resolved');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]?.event.payload).toMatchObject({ outcome: 'selected', answeredBy: 'alice' });
    const frames = (await t.store.readFrames(run.runId)).map((f) => f.frame as { harness?: string });
    expect(frames.filter((f) => f.harness === 'approval.answered')).toHaveLength(1);
  });

  it('0 turns the timeout off; the default is 15 minutes', async () => {
    expect(DEFAULT_APPROVAL_TIMEOUT_MS).toBe(15 * 60_000);
    await open(0);
    const { run } = await lane.createRun({ threadId: 'th', prompt: 'approval a1' });
    await waitFor(async () =>
      (await t.store.readFrames(run.runId)).some((f) => (f.frame as { t?: string }).t === 'approval'),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect((await t.store.getRun(run.runId))?.status).toBe('running');
    expect(
      (await t.store.readFrames(run.runId)).some(
        (f) => (f.frame as { harness?: string }).harness === 'approval.answered',
      ),
    ).toBe(false);
    await lane.cancelRun(run.runId);
  });

  it('a timeout that is not a whole number of ms is refused when the lane is made', async () => {
    t = await sqliteTestStore();
    lane = createLane({ store: t.store, drivers: [], ownerId: 'p', execute: false });
    expect(() =>
      createLane({ store: t.store, drivers: [], ownerId: 'p', approvalTimeoutMs: -1, execute: false }),
    ).toThrow(/approvalTimeoutMs/);
  });
});
