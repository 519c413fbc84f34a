import { afterEach, describe, expect, it } from 'vitest';
import { createLane } from '../src';
import { waitFor } from './helpers/collect';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

describe('an engine gone between turns (SQLite)', () => {
  let t: TestStore;
  afterEach(async () => {
    await t.cleanup();
  });

  it('the next run reopens the session from its binding (new generation) and succeeds', async () => {
    t = await sqliteTestStore({ fast: true });
    await t.store.createThread({ threadId: 'd', engine: 'test', title: null, workDir: null, metadata: {} });
    const driver = createTestDriver();
    const lane = createLane({ store: t.store, drivers: [driver], ownerId: 'one', pollIntervalMs: 20 });
    await lane.start();
    const settle = async (prompt: string) => {
      const { run } = await lane.createRun({ threadId: 'd', prompt });
      return waitFor(async () => {
        const r = await t.store.getRun(run.runId);
        return r?.canonicalizedAt ? r : null;
      });
    };
    try {
      expect(await settle('delta a\ndie')).toMatchObject({ status: 'completed', outcome: 'completed' });
      const before = await t.store.getSession('d');
      const next = await settle('delta b');
      expect(next).toMatchObject({ status: 'completed', outcome: 'completed', error: null });
      expect(driver.opened).toBe(2);
      const after = await t.store.getSession('d');
      expect(after?.nativeSessionId).toBe(before?.nativeSessionId);
      expect(after?.generation).toBe((before?.generation ?? 0) + 1);
      const frames = (await t.store.readFrames(next.runId)).map(
        (f) => f.frame as { harness?: string; fatal?: boolean; origin?: string; generation?: number },
      );
      expect(frames.slice(0, 3)).toMatchObject([
        { harness: 'turn.started' },
        { harness: 'engine.error', fatal: false },
        { harness: 'session.bound', origin: 'load', generation: after?.generation },
      ]);
    } finally {
      await lane.stop();
    }
  });
});
