import { describe, expect, it } from 'vitest';
import { createTestDriver } from './helpers/test-driver';
import { canonicalizeRun, livePipeline, threadFixture } from './helpers/thread-fixture';

/**
 * seq is the run's monotonic cursor: an artifact.created made by moving a large payload out has a seq of its
 * own (it had its source event's), the same in the live and the final pass.
 */
describe('artifact.created of an offloaded payload has a seq of its own (SQLite)', () => {
  const fx = threadFixture();
  const driver = createTestDriver();

  it('no two eventIds of a run share a seq; the final pass gives the artifact events the same one', async () => {
    const runId = await fx.newRun();
    const big = (c: string) => c.repeat(100 * 1024);
    const frames = [
      { harness: 'turn.started', prompt: 'p' },
      { t: 'delta', text: 'a' },
      { t: 'snapshot', id: 's1', text: big('x') },
      { t: 'delta', text: 'b' },
      // Revised, still large: its artifact event keeps its place.
      { t: 'snapshot', id: 's1', text: big('y') },
      { t: 'snapshot', id: 's2', text: big('z') },
      { harness: 'turn.ended', outcome: 'completed' },
    ];
    const pipeline = livePipeline(fx, driver, runId);
    // One frame per flush, as an engine streaming slowly would emit them.
    for (const frame of frames) {
      pipeline.emit(frame as never);
      await pipeline.drain();
    }
    pipeline.close();
    const createdLive = (await fx.t.store.readEvents('th', 0, 1000)).filter(
      (r) => r.kind === 'artifact.created',
    );
    await canonicalizeRun(fx, driver, runId);

    const rows = await fx.t.store.readEvents('th', 0, 1000);
    const idsBySeq = new Map<number, Set<string>>();
    for (const r of rows) {
      const ids = idsBySeq.get(r.event.seq) ?? new Set<string>();
      ids.add(r.event.eventId);
      idsBySeq.set(r.event.seq, ids);
    }
    expect([...idsBySeq.values()].filter((ids) => ids.size > 1)).toEqual([]);
    const created = rows.filter((r) => r.kind === 'artifact.created');
    expect(new Set(created.map((r) => r.event.eventId)).size).toBe(2);
    // The final pass found the live pass's artifact rows equal (same seq): it wrote no revision of them.
    expect(created).toEqual(createdLive.map((r) => ({ ...r, provisional: false })));
  });
});
