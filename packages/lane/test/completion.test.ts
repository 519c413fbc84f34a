import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Canonicalizer, PublishHub } from '../src/internal';
import { Collector } from './helpers/collect';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

const now = () => new Date().toISOString();

describe('completion discipline (SQLite)', () => {
  let t: TestStore;
  let hub: PublishHub;
  const driver = createTestDriver();

  beforeEach(async () => {
    t = await sqliteTestStore();
    hub = new PublishHub(t.store, { headPollMs: 0 });
    await t.store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
  });
  afterEach(async () => {
    hub.close();
    await t.cleanup();
  });

  async function settledRun(frames: object[]): Promise<string> {
    const { run } = await t.store.createRun({ threadId: 'th', prompt: 'p' });
    await t.store.claimRun(run.runId, 'owner');
    await t.store.appendFrames(
      run.runId,
      frames.map((frame) => ({ receivedAt: now(), frame: frame as never })),
    );
    await t.store.finalizeRun(run.runId, 'completed');
    return run.runId;
  }

  it('an in-place rewrite between translation and the re-read blocks completion; a retry completes once stable', async () => {
    const runId = await settledRun([
      { harness: 'turn.started', prompt: 'p' },
      { t: 'snapshot', id: 's1', text: 'original' },
      { harness: 'turn.ended', outcome: 'completed' },
    ]);
    let rewrites = 0;
    const canon = new Canonicalizer({
      store: t.store,
      hub,
      workerId: 'w',
      driverFor: () => driver,
      beforeWatermarkCheck: () => {
        if (rewrites > 0) return;
        rewrites++;
        // Same frame count, same max native seq: only a content signature notices this.
        const db = new Database(t.path as string);
        db.prepare('UPDATE source_frames SET frame = ? WHERE run_id = ? AND native_seq = 2').run(
          JSON.stringify({ t: 'snapshot', id: 's1', text: 'rewritten' }),
          runId,
        );
        db.close();
      },
    });
    const c = new Collector();
    await hub.subscribe('th', 0, c.listener);

    const first = await canon.processOnce();
    expect(first).toEqual([expect.objectContaining({ runId, status: 'retry' })]);
    expect(await t.store.getCompletion(runId)).toBeNull();
    expect(c.events.some((e) => e.type === 'run.canonicalized')).toBe(false);
    // Every row is still provisional: no completion record.
    expect((await t.store.readEvents('th', 0, 100)).every((r) => r.provisional)).toBe(true);

    const second = await canon.processOnce();
    expect(second).toEqual([expect.objectContaining({ runId, status: 'completed' })]);
    expect(await t.store.getCompletion(runId)).not.toBeNull();
    await c.until((x) => x.events.some((e) => e.type === 'run.canonicalized'));

    // The retry re-translated the rewritten source: the snapshot got a new revision, nothing was updated in place.
    const snap = (await t.store.readEvents('th', 0, 100)).filter((r) => r.kind === 'message.completed');
    expect(snap.map((r) => [r.revision, (r.event.payload as { text: string }).text])).toEqual([
      [1, 'original'],
      [2, 'rewritten'],
    ]);
    // And nothing more to do.
    expect(await canon.processOnce()).toEqual([]);
  });

  it('the final pass over an unchanged source makes no new revisions', async () => {
    const runId = await settledRun([
      { harness: 'turn.started', prompt: 'p' },
      { t: 'delta', text: 'a' },
      { t: 'snapshot', id: 's', text: 'same' },
      { t: 'snapshot', id: 's', text: 'same' },
      { harness: 'turn.ended', outcome: 'completed' },
    ]);
    const canon = new Canonicalizer({ store: t.store, hub, workerId: 'w', driverFor: () => driver });
    const [outcome] = await canon.processOnce();
    expect(outcome?.status).toBe('completed');
    const rows = await t.store.readEvents('th', 0, 100);
    // Nothing was translated live here, so the final pass wrote everything once; a second final pass adds nothing.
    expect(new Set(rows.map((r) => r.eventId)).size).toBe(rows.length);
    const again = new Canonicalizer({ store: t.store, hub, workerId: 'w2', driverFor: () => driver });
    await t.store.releaseOutbox(runId, 'test').catch(() => undefined);
    expect(await again.processOnce()).toEqual([]);
    expect((await t.store.readEvents('th', 0, 100)).length).toBe(rows.length);
  });

  it('a late frame after sealing is refused and recorded, never translated', async () => {
    const runId = await settledRun([{ harness: 'turn.started', prompt: 'p' }]);
    const canon = new Canonicalizer({ store: t.store, hub, workerId: 'w', driverFor: () => driver });
    await canon.processOnce();
    await expect(
      t.store.appendFrames(runId, [{ receivedAt: now(), frame: { t: 'delta', text: 'late' } }]),
    ).rejects.toMatchObject({
      code: 'source_sealed',
    });
    expect((await t.store.listRefusedFrames(runId)).length).toBe(1);
    expect((await t.store.readEvents('th', 0, 100)).some((r) => r.kind === 'message.delta')).toBe(false);
  });
});
