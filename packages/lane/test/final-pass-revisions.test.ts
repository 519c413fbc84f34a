import type { DeliveryRow } from '@agentlane/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunTranslation } from '../src';
import { Canonicalizer, deriveEventId, Materializer, PublishHub, RunPipeline } from '../src/internal';
import { Collector } from './helpers/collect';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

const now = () => new Date().toISOString();
const N = 5;
const versions = Array.from({ length: N }, (_, i) => `version ${i}`);
const text = (r: DeliveryRow) => (r.event.payload as { text: string }).text;

/**
 * A translator that revises one key N times (the test engine's `snapshot` frames share the key `snap:<id>`):
 * the final pass over the sealed source writes the end state once, never the history again.
 */
describe('final pass: at most one revision per eventId (SQLite)', () => {
  let t: TestStore;
  let hub: PublishHub;
  const driver = createTestDriver();

  beforeEach(async () => {
    t = await sqliteTestStore({ fast: true });
    hub = new PublishHub(t.store, { headPollMs: 0 });
    await t.store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
  });
  afterEach(async () => {
    hub.close();
    await t.cleanup();
  });

  async function newRun(): Promise<string> {
    const { run } = await t.store.createRun({ threadId: 'th', prompt: 'p' });
    await t.store.claimRun(run.runId, 'owner');
    return run.runId;
  }

  /** The live pass (the executor's pipeline): each frame stored, translated, its rows written, published. */
  async function livePass(runId: string, frames: object[]): Promise<void> {
    const pipeline = new RunPipeline({
      store: t.store,
      hub,
      threadId: 'th',
      runId,
      translation: new RunTranslation(driver.translator, {
        threadId: 'th',
        runId,
        turnId: runId,
        provider: driver.provider,
      }),
      materializer: new Materializer(t.store),
    });
    for (const frame of frames) {
      pipeline.emit(frame as never);
      await pipeline.drain();
    }
    pipeline.close();
  }

  async function canonicalize(runId: string) {
    await t.store.finalizeRun(runId, 'completed');
    const canon = new Canonicalizer({ store: t.store, hub, workerId: 'w', driverFor: () => driver });
    const outcomes = await canon.processOnce();
    expect(outcomes).toEqual([expect.objectContaining({ runId, status: 'completed' })]);
    const [outcome] = outcomes;
    return outcome?.status === 'completed' ? outcome : expect.unreachable();
  }

  const snapRows = async (runId: string) =>
    (await t.store.readEvents('th', 0, 1000)).filter((r) => r.eventId === deriveEventId(runId, 'snap:s'));

  it('appends nothing when the live pass already stored every revision', async () => {
    const runId = await newRun();
    const c = new Collector();
    await hub.subscribe('th', 0, c.listener);
    await livePass(runId, [
      { harness: 'turn.started', prompt: 'p' },
      ...versions.map((v) => ({ t: 'snapshot', id: 's', text: v })),
      { harness: 'turn.ended', outcome: 'completed' },
    ]);
    const live = await t.store.readEvents('th', 0, 1000);
    expect((await snapRows(runId)).map((r) => [r.revision, text(r)])).toEqual(
      versions.map((v, i) => [i + 1, v]),
    );

    const outcome = await canonicalize(runId);
    expect(outcome.revised).toBe(0);
    const after = await t.store.readEvents('th', 0, 1000);
    expect(after.map((r) => [r.deliverySeq, r.eventId, r.revision])).toEqual(
      live.map((r) => [r.deliverySeq, r.eventId, r.revision]),
    );
    expect(outcome.record.lastDeliverySeq).toBe(live.at(-1)?.deliverySeq);
    expect(after.every((r) => !r.provisional)).toBe(true);
    // A reader saw each version once, in order, and the completion: never the text going back.
    await c.until((x) => x.events.some((e) => e.type === 'run.canonicalized'));
    const seen = c.rows().filter((r) => r.event.eventId === deriveEventId(runId, 'snap:s'));
    expect(seen.map((r) => (r.event.payload as { text: string }).text)).toEqual(versions);
  });

  it('appends exactly one revision, the end state, when it differs from the latest stored one', async () => {
    const runId = await newRun();
    await livePass(runId, [
      { harness: 'turn.started', prompt: 'p' },
      ...versions.map((v) => ({ t: 'snapshot', id: 's', text: v })),
    ]);
    // Frames the live pass never translated (its process went away): only the source lane has them.
    await t.store.appendFrames(runId, [
      { receivedAt: now(), frame: { t: 'snapshot', id: 's', text: 'final' } },
      { receivedAt: now(), frame: { harness: 'turn.ended', outcome: 'completed' } },
    ]);
    const live = await t.store.readEvents('th', 0, 1000);

    const outcome = await canonicalize(runId);
    // The revision of snap:s and the turn.completed the live pass missed; nothing else.
    expect(outcome.revised).toBe(2);
    const added = (await t.store.readEvents('th', 0, 1000)).slice(live.length);
    expect(added.map((r) => r.kind)).toEqual(['message.completed', 'turn.completed']);
    expect((await snapRows(runId)).map((r) => [r.revision, text(r)])).toEqual([
      ...versions.map((v, i) => [i + 1, v]),
      [N + 1, 'final'],
    ]);
  });

  it('a run with no live rows gets each eventId once, in seq order, at its end state', async () => {
    const runId = await newRun();
    await t.store.appendFrames(
      runId,
      [
        { harness: 'turn.started', prompt: 'p' },
        { t: 'snapshot', id: 's', text: versions[0] },
        { t: 'delta', text: 'a' },
        ...versions.slice(1).map((v) => ({ t: 'snapshot', id: 's', text: v })),
        { harness: 'turn.ended', outcome: 'completed' },
      ].map((frame) => ({ receivedAt: now(), frame: frame as never })),
    );
    const outcome = await canonicalize(runId);
    const rows = await t.store.readEvents('th', 0, 1000);
    expect(outcome.revised).toBe(rows.length);
    expect(new Set(rows.map((r) => r.eventId)).size).toBe(rows.length);
    // deliverySeq order is the order of first emission (seq), as the live pass would have written them.
    expect(rows.map((r) => r.event.seq)).toEqual(rows.map((_, i) => i + 1));
    expect((await snapRows(runId)).map((r) => [r.revision, text(r)])).toEqual([[1, versions[N - 1]]]);
  });

  it('an end state equal to an earlier version, stored last by the live pass, appends nothing', async () => {
    const runId = await newRun();
    await livePass(runId, [
      { harness: 'turn.started', prompt: 'p' },
      ...versions.map((v) => ({ t: 'snapshot', id: 's', text: v })),
      { t: 'snapshot', id: 's', text: versions[0] },
      { harness: 'turn.ended', outcome: 'completed' },
    ]);
    const live = await t.store.readEvents('th', 0, 1000);
    expect((await canonicalize(runId)).revised).toBe(0);
    expect((await t.store.readEvents('th', 0, 1000)).length).toBe(live.length);
    expect((await snapRows(runId)).map(text)).toEqual([...versions, versions[0]]);
  });
});
