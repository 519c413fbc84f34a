import type { RunCanonicalizedEvent } from '@agentlane/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Lane } from '../src';
import { createLane } from '../src';
import { Collector, waitFor } from './helpers/collect';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

describe('lane on SQLite: run execution, live rows, completion', () => {
  let t: TestStore;
  let lane: Lane;
  const driver = createTestDriver();

  beforeEach(async () => {
    t = await sqliteTestStore();
    lane = createLane({ store: t.store, drivers: [driver], ownerId: 'p1', pollIntervalMs: 20 });
    await lane.start();
    await t.store.createThread({ threadId: 'th1', engine: 'test', title: null, workDir: null, metadata: {} });
  });
  afterEach(async () => {
    await lane.stop();
    await t.cleanup();
  });

  it('runs a turn, streams provisional rows live, then canonicalizes and signals completion', async () => {
    const c = new Collector();
    const sub = await lane.subscribe('th1', 0, c.listener);
    expect(c.events[0]).toEqual({ type: 'stream.opened', threadId: 'th1', after: 0, headDeliverySeq: 0 });
    const { run } = await lane.createRun({
      threadId: 'th1',
      prompt: 'delta hello\ndelta world\nsnapshot s1 hello world',
    });
    await c.until((x) => x.events.some((e) => e.type === 'run.canonicalized'));
    const done = c.events.find((e) => e.type === 'run.canonicalized') as RunCanonicalizedEvent;
    expect(done.runId).toBe(run.runId);
    expect(done.status).toBe('completed');
    const kinds = c.rows().map((r) => r.type);
    expect(kinds).toEqual([
      'turn.started',
      'message.started',
      'message.delta',
      'message.delta',
      'message.completed',
      'turn.completed',
      'message.completed',
    ]);
    // Delivered in deliverySeq order, no gap, no duplicate, all ≤ the completion's lastDeliverySeq.
    const seqs = c.seqs();
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(done.lastDeliverySeq).toBe(seqs[seqs.length - 1]);
    // Envelope: deterministic ids, seq in translated order, provider filled in, ts from the frames.
    const events = c.rows().map((r) => r.event);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const e of events) {
      expect(e.identity.provider).toBe('test');
      expect(e.schemaVersion).toBe(1);
      expect(e.runId).toBe(run.runId);
    }
    // run.status signals went out for queued, running and completed.
    const statuses = c.events
      .filter((e) => e.type === 'run.status')
      .map((e) => (e as { status: string }).status);
    expect(statuses).toEqual(['queued', 'running', 'completed']);
    const stored = await t.store.getRun(run.runId);
    expect(stored?.status).toBe('completed');
    expect(stored?.canonicalizedAt).not.toBeNull();
    // After completion, a fresh reader sees the same rows, no longer provisional.
    const rows = await t.store.readEvents('th1', 0, 100);
    expect(rows.map((r) => r.deliverySeq)).toEqual(seqs);
    expect(rows.every((r) => !r.provisional)).toBe(true);
    // The session binding was persisted.
    const session = await t.store.getSession('th1');
    expect(session?.nativeSessionId).toBe('native-th1');
    sub.close();
  });

  it('one subscription covers later runs; a resume after N gets exactly the rest', async () => {
    const c = new Collector();
    await lane.subscribe('th1', 0, c.listener);
    const r1 = await lane.createRun({ threadId: 'th1', prompt: 'delta one' });
    await waitFor(async () => (await t.store.getRun(r1.run.runId))?.canonicalizedAt);
    const r2 = await lane.createRun({ threadId: 'th1', prompt: 'delta two', parentRunId: r1.run.runId });
    await waitFor(async () => (await t.store.getRun(r2.run.runId))?.canonicalizedAt);
    await c.until((x) => x.events.filter((e) => e.type === 'run.canonicalized').length === 2);
    const runIds = new Set(c.rows().map((r) => r.event.runId));
    expect(runIds).toEqual(new Set([r1.run.runId, r2.run.runId]));
    const all = c.seqs();
    expect(all).toEqual(all.map((_, i) => i + 1));
    const mid = all[3] as number;
    const resumed = new Collector();
    await lane.subscribe('th1', mid, resumed.listener);
    await resumed.until((x) => x.rows().length === all.length - mid);
    expect(resumed.seqs()).toEqual(all.slice(mid));
  });

  it('a retried run.create with the same idempotency key creates one run', async () => {
    const a = await lane.createRun({ threadId: 'th1', prompt: 'delta x', idempotencyKey: 'k1' });
    const b = await lane.createRun({ threadId: 'th1', prompt: 'delta x', idempotencyKey: 'k1' });
    expect(b.created).toBe(false);
    expect(b.run.runId).toBe(a.run.runId);
    expect((await t.store.listRuns('th1')).length).toBe(1);
  });

  it('approvals: the answer recorded through the lane reaches the waiting turn and is in the source lane', async () => {
    const c = new Collector();
    await lane.subscribe('th1', 0, c.listener);
    const { run } = await lane.createRun({ threadId: 'th1', prompt: 'approval a1\ndelta after' });
    await waitFor(async () =>
      (await t.store.readFrames(run.runId)).some((f) => (f.frame as { t?: string }).t === 'approval'),
    );
    await lane.answerApproval({
      runId: run.runId,
      approvalId: 'a1',
      answer: { outcome: 'selected', optionId: 'allow' },
    });
    await c.until((x) => x.events.some((e) => e.type === 'run.canonicalized'));
    expect(c.rows().map((r) => r.type)).toContain('approval.resolved');
    const frames = await t.store.readFrames(run.runId);
    expect(frames.some((f) => (f.frame as { harness?: string }).harness === 'approval.answered')).toBe(true);
    expect((await t.store.getRun(run.runId))?.status).toBe('completed');
  });

  it('run.cancel aborts the turn; the run settles completed with outcome cancelled and is canonicalized', async () => {
    const { run } = await lane.createRun({ threadId: 'th1', prompt: 'delta start\nwait-cancel' });
    await waitFor(async () => (await t.store.getRun(run.runId))?.status === 'running');
    await lane.cancelRun(run.runId);
    const settled = await waitFor(async () => {
      const r = await t.store.getRun(run.runId);
      return r?.canonicalizedAt ? r : null;
    });
    expect(settled).toMatchObject({ status: 'completed', outcome: 'cancelled', error: null });
    const frames = (await t.store.readFrames(run.runId)).map(
      (f) => f.frame as { harness?: string; outcome?: string },
    );
    expect(frames.some((f) => f.harness === 'turn.cancel_requested')).toBe(true);
    expect(frames.at(-1)).toMatchObject({ harness: 'turn.ended', outcome: 'cancelled' });
  });

  it('an engine that throws fails the run with a harness.error, and the lane keeps working', async () => {
    const { run } = await lane.createRun({ threadId: 'th1', prompt: 'delta a\nthrow boom' });
    await waitFor(async () => (await t.store.getRun(run.runId))?.canonicalizedAt);
    const rows = await t.store.latestEvents({ threadId: 'th1', runId: run.runId });
    const err = rows.find((r) => r.kind === 'harness.error');
    expect(err?.event.payload).toMatchObject({ fatal: true });
    expect((await t.store.getRun(run.runId))?.status).toBe('failed');
    const next = await lane.createRun({ threadId: 'th1', prompt: 'delta b' });
    await waitFor(async () => (await t.store.getRun(next.run.runId))?.canonicalizedAt);
    expect((await t.store.getRun(next.run.runId))?.status).toBe('completed');
  });

  it('payloads above the threshold go to the artifact store with a bounded preview', async () => {
    const { run } = await lane.createRun({ threadId: 'th1', prompt: 'big 100000' });
    await waitFor(async () => (await t.store.getRun(run.runId))?.canonicalizedAt);
    const rows = await t.store.latestEvents({ threadId: 'th1', runId: run.runId });
    const tool = rows.find((r) => r.kind === 'tool.completed');
    const payload = tool?.event.payload as {
      output?: unknown;
      outputArtifact?: { artifact: { id: string; bytes: number }; preview: string; truncated: boolean };
    };
    expect(payload.output).toBeUndefined();
    expect(payload.outputArtifact?.truncated).toBe(true);
    expect(payload.outputArtifact?.preview.length).toBe(2048);
    expect(payload.outputArtifact?.artifact.bytes).toBe(100000);
    const art = await t.store.getArtifact(payload.outputArtifact?.artifact.id as string);
    expect(art?.content.byteLength).toBe(100000);
    // The final pass reproduced the same event: one revision only.
    expect(tool?.revision).toBe(1);
  });
});
