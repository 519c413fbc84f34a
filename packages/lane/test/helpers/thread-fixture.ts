import type { EngineDriver } from '@agentlane/engine-kit';
import { afterEach, beforeEach, expect } from 'vitest';
import { RunTranslation } from '../../src';
import {
  type CanonicalizeOutcome,
  Canonicalizer,
  type CanonicalizerOptions,
  Materializer,
  PublishHub,
  RunPipeline,
} from '../../src/internal';
import { sqliteTestStore, type TestStore } from './stores';

/** What each test of a block gets from threadFixture(). */
export interface ThreadFixture {
  /** The store (on tmpfs) of the running test. */
  readonly t: TestStore;
  readonly hub: PublishHub;
  /** A run of thread `th`, claimed (so it can be finalized). */
  newRun(): Promise<string>;
}

/** Before each test of the calling block: a fresh SQLite store with thread `th` (engine `test`) and a hub. */
export function threadFixture(): ThreadFixture {
  let t: TestStore | undefined;
  let hub: PublishHub | undefined;
  beforeEach(async () => {
    t = await sqliteTestStore({ fast: true });
    hub = new PublishHub(t.store, { headPollMs: 0 });
    await t.store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
  });
  afterEach(async () => {
    hub?.close();
    await t?.cleanup();
  });
  const fixture: ThreadFixture = {
    get t() {
      if (!t) throw new Error('the fixture is set up before each test');
      return t;
    },
    get hub() {
      if (!hub) throw new Error('the fixture is set up before each test');
      return hub;
    },
    async newRun() {
      const { run } = await fixture.t.store.createRun({ threadId: 'th', prompt: 'p' });
      await fixture.t.store.claimRun(run.runId, 'owner');
      return run.runId;
    },
  };
  return fixture;
}

/** The live pass of run `runId` of thread `th` as the executor builds it (its pipeline), on the fixture's store. */
export function livePipeline(fx: ThreadFixture, driver: EngineDriver, runId: string): RunPipeline {
  const ctx = { threadId: 'th', runId, turnId: runId, provider: driver.provider };
  return new RunPipeline({
    store: fx.t.store,
    hub: fx.hub,
    threadId: 'th',
    runId,
    translation: new RunTranslation(driver.translator, ctx),
    materializer: new Materializer(fx.t.store),
  });
}

/** Settles run `runId` and runs the final pass once (the canonicalizer alone, on the fixture's store). */
export async function canonicalizeRun(
  fx: ThreadFixture,
  driver: EngineDriver,
  runId: string,
  options: Partial<CanonicalizerOptions> = {},
): Promise<Extract<CanonicalizeOutcome, { status: 'completed' }>> {
  await fx.t.store.finalizeRun(runId, 'completed');
  const canon = new Canonicalizer({
    store: fx.t.store,
    hub: fx.hub,
    workerId: 'w',
    driverFor: () => driver,
    ...options,
  });
  const [outcome] = await canon.processOnce();
  expect(outcome).toMatchObject({ runId, status: 'completed' });
  return outcome as Extract<CanonicalizeOutcome, { status: 'completed' }>;
}
