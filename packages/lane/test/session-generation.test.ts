import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLane } from '../src';
import { waitFor } from './helpers/collect';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

describe('session binding across lane restarts (SQLite)', () => {
  let t: TestStore;
  beforeEach(async () => {
    t = await sqliteTestStore({ fast: true });
    await t.store.createThread({ threadId: 'g', engine: 'test', title: null, workDir: null, metadata: {} });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  async function runOnce(ownerId: string, prompt: string): Promise<void> {
    const lane = createLane({ store: t.store, drivers: [createTestDriver()], ownerId, pollIntervalMs: 20 });
    await lane.start();
    try {
      const { run } = await lane.createRun({ threadId: 'g', prompt });
      await waitFor(async () => (await t.store.getRun(run.runId))?.canonicalizedAt);
    } finally {
      await lane.stop();
    }
  }

  it('a new process reattaches the persisted native session, bumps the generation, and refuses a stale one', async () => {
    await runOnce('first', 'delta a');
    const s1 = await t.store.getSession('g');
    expect(s1?.generation).toBe(1);
    await runOnce('second', 'delta b');
    const s2 = await t.store.getSession('g');
    // Same native session (reattached via `previous`), new runtime binding → next generation.
    expect(s2?.nativeSessionId).toBe(s1?.nativeSessionId);
    expect(s2?.generation).toBe(2);
    const lane = createLane({
      store: t.store,
      drivers: [createTestDriver()],
      ownerId: 'third',
      execute: false,
    });
    await expect(lane.createRun({ threadId: 'g', prompt: 'x', expectedGeneration: 1 })).rejects.toMatchObject(
      {
        code: 'stale_generation',
      },
    );
    const ok = await lane.createRun({ threadId: 'g', prompt: 'x', expectedGeneration: 2 });
    expect(ok.created).toBe(true);
    await lane.stop();
  });

  it('the session.bound frame of each open lands in the run source lane', async () => {
    await runOnce('first', 'delta a');
    const [run] = await t.store.listRuns('g');
    const frames = await t.store.readFrames(run?.runId as string);
    expect(frames.map((f) => (f.frame as { harness?: string }).harness).slice(0, 2)).toEqual([
      'turn.started',
      'session.bound',
    ]);
  });
});
