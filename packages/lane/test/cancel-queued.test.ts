import { afterEach, describe, expect, it } from 'vitest';
import { createLane } from '../src';
import { waitFor } from './helpers/collect';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

describe('run.cancel before the run is claimed (SQLite)', () => {
  let t: TestStore;
  afterEach(async () => {
    await t.cleanup();
  });

  it('the executor that later claims it settles it cancelled without starting the engine', async () => {
    t = await sqliteTestStore({ fast: true });
    await t.store.createThread({ threadId: 'c', engine: 'test', title: null, workDir: null, metadata: {} });
    // An API-only process records both commands; a second process executes.
    const api = createLane({ store: t.store, drivers: [], ownerId: 'api', execute: false });
    const { run } = await api.createRun({ threadId: 'c', prompt: 'delta never' });
    await api.cancelRun(run.runId, 'cancel-1');
    const driver = createTestDriver();
    const worker = createLane({ store: t.store, drivers: [driver], ownerId: 'worker', pollIntervalMs: 20 });
    await worker.start();
    try {
      const settled = await waitFor(async () => {
        const r = await t.store.getRun(run.runId);
        return r?.canonicalizedAt ? r : null;
      });
      expect(settled).toMatchObject({ status: 'completed', outcome: 'cancelled', error: null });
      expect(driver.opened).toBe(0);
      const harness = (await t.store.readFrames(run.runId)).map(
        (f) => (f.frame as { harness?: string }).harness,
      );
      expect(harness).toEqual(['turn.started', 'turn.cancel_requested', 'turn.ended']);
    } finally {
      await worker.stop();
      await api.stop();
    }
  });

  it('a queued run waiting for a slot settles cancelled at once, while the run holding the slot goes on', async () => {
    t = await sqliteTestStore({ fast: true });
    for (const threadId of ['busy', 'waiting'])
      await t.store.createThread({ threadId, engine: 'test', title: null, workDir: null, metadata: {} });
    const driver = createTestDriver();
    const lane = createLane({
      store: t.store,
      drivers: [driver],
      ownerId: 'one',
      pollIntervalMs: 20,
      maxConcurrentRuns: 1,
    });
    await lane.start();
    try {
      const busy = await lane.createRun({ threadId: 'busy', prompt: 'wait-cancel' });
      await waitFor(async () => ((await t.store.getRun(busy.run.runId))?.status === 'running' ? true : null));
      const { run } = await lane.createRun({ threadId: 'waiting', prompt: 'delta never' });
      expect((await t.store.getRun(run.runId))?.status).toBe('queued');
      await lane.cancelRun(run.runId, 'cancel-queued');
      // Before: it stayed queued until the busy run ended (with approvals, up to their timeout).
      const settled = await waitFor(async () => {
        const r = await t.store.getRun(run.runId);
        return r?.status === 'completed' ? r : null;
      });
      expect(settled).toMatchObject({ outcome: 'cancelled' });
      expect((await t.store.getRun(busy.run.runId))?.status).toBe('running');
      expect(driver.opened).toBe(1);
      await lane.cancelRun(busy.run.runId, 'cancel-busy');
      await waitFor(async () =>
        (await t.store.getRun(busy.run.runId))?.status === 'completed' ? true : null,
      );
    } finally {
      await lane.stop();
    }
  });
});
