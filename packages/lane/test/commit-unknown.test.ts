import type { Store } from '@agentlane/store';
import { afterEach, describe, expect, it } from 'vitest';
import { createLane } from '../src';
import { waitFor } from './helpers/collect';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

/**
 * A commit that went through although its caller heard an error (the connection broke during COMMIT): the
 * store wrapper lets the call reach the store, then rejects it, for the frames and the rows of one flush.
 */
function unheardCommit(store: Store, once: { cuts: number }): Store {
  const unknown = () =>
    Object.assign(new Error('the connection broke during COMMIT'), { code: 'commit_outcome_unknown' });
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      if (key === 'appendFrames' || key === 'appendEvents')
        return async (...args: unknown[]) => {
          const result = await value.apply(target, args);
          // Frames and rows of one flush share one group commit: both calls hear that it failed.
          if (once.cuts > 0 && (args[1] as unknown[]).length > 0) {
            once.cuts--;
            throw unknown();
          }
          return result;
        };
      return value.bind(target);
    },
  });
}

describe('a flush whose commit went through unheard (SQLite)', () => {
  let t: TestStore;
  afterEach(async () => {
    await t.cleanup();
  });

  it('retrying its frames stores none of them twice; the final text is the engine text', async () => {
    t = await sqliteTestStore({ fast: true });
    await t.store.createThread({ threadId: 'u', engine: 'test', title: null, workDir: null, metadata: {} });
    const once = { cuts: 0 };
    const lane = createLane({
      store: unheardCommit(t.store, once),
      drivers: [createTestDriver()],
      ownerId: 'one',
      pollIntervalMs: 20,
    });
    await lane.start();
    try {
      const { run } = await lane.createRun({
        threadId: 'u',
        prompt: 'delta one \nsleep 200\ndelta two \nsleep 200\ndelta three',
      });
      // Armed after the first flush, so the cut one is a flush of frames and rows together.
      await waitFor(async () => ((await t.store.readFrames(run.runId)).length > 1 ? true : null));
      once.cuts = 2;
      const settled = await waitFor(async () => {
        const r = await t.store.getRun(run.runId);
        return r?.canonicalizedAt ? r : null;
      });
      expect(settled.status).toBe('completed');
      expect(once.cuts).toBe(0);
      const frames = (await t.store.readFrames(run.runId)).map((f) => JSON.stringify(f.frame));
      expect(new Set(frames).size).toBe(frames.length);
      const completed = (await t.store.latestEvents({ threadId: 'u', runId: run.runId })).find(
        (r) => r.kind === 'message.completed',
      );
      // The test engine's message counts its deltas: a frame stored twice would make it 4.
      expect(completed?.event.payload).toMatchObject({ text: '3 deltas' });
      expect(await t.store.listRefusedFrames(run.runId)).toEqual([]);
    } finally {
      await lane.stop();
    }
  });
});
