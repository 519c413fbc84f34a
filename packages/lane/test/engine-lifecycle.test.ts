import type { JsonValue } from '@agentlane/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { createLane, type Lane } from '../src';
import { BETWEEN_TURNS_MAX_FRAMES, FrameRouter } from '../src/engine-sessions';
import { waitFor } from './helpers/collect';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

type Frame = {
  harness?: string;
  fatal?: boolean;
  message?: string;
  outcome?: string;
  t?: string;
  detail?: { droppedFrames?: number; droppedBytes?: number };
};

describe('engine session lifecycle (SQLite)', () => {
  let t: TestStore;
  let lane: Lane | undefined;
  afterEach(async () => {
    await lane?.stop();
    lane = undefined;
    await t.cleanup();
  });

  async function setup(options: { cancelGraceMs?: number; engineIdleMs?: number; turnIdleMs?: number } = {}) {
    t = await sqliteTestStore({ fast: true });
    await t.store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
    const driver = createTestDriver();
    lane = createLane({ store: t.store, drivers: [driver], ownerId: 'one', pollIntervalMs: 20, ...options });
    await lane.start();
    const l = lane;
    const settled = (runId: string) =>
      waitFor(async () => {
        const r = await t.store.getRun(runId);
        return r?.canonicalizedAt ? r : null;
      }, 20_000);
    const settle = async (prompt: string) =>
      settled((await l.createRun({ threadId: 'th', prompt })).run.runId);
    const frames = async (runId: string) => (await t.store.readFrames(runId)).map((f) => f.frame as Frame);
    return { driver, lane: l, settled, settle, frames };
  }

  it('a cancel the engine ignores ends the run cancelled after cancelGraceMs and closes the engine session', async () => {
    const { driver, lane: l, settled, settle, frames } = await setup({ cancelGraceMs: 200 });
    const { run } = await l.createRun({ threadId: 'th', prompt: 'delta start\nignore-cancel' });
    await waitFor(async () => (await t.store.getRun(run.runId))?.status === 'running');
    await waitFor(async () => (await frames(run.runId)).some((f) => f.t === 'delta'));
    await l.cancelRun(run.runId);
    const done = await settled(run.runId);
    expect(done).toMatchObject({ status: 'completed', outcome: 'cancelled', error: null });
    // The engine's session was closed (its process killed), not left running.
    expect(driver.closed).toBe(1);
    const seen = await frames(run.runId);
    const ended = seen.findIndex((f) => f.harness === 'turn.ended');
    expect(seen[ended]).toMatchObject({ harness: 'turn.ended', outcome: 'cancelled' });
    const warning = seen.find((f) => f.harness === 'engine.error');
    expect(warning).toMatchObject({ fatal: false });
    expect(warning?.message).toMatch(/did not end the turn within 200 ms of run\.cancel/);
    // The abandoned turn's late frame is not the run's: turn.ended is the last frame, 'late' never stored.
    expect(seen.at(-1)).toMatchObject({ harness: 'turn.ended' });
    expect(seen.some((f) => f.t === 'delta' && JSON.stringify(f).includes('late'))).toBe(false);
    // The thread goes on with a new engine session.
    expect(await settle('delta again')).toMatchObject({ status: 'completed', outcome: 'completed' });
    expect(driver.opened).toBe(2);
  });

  it('an engine session no run used for engineIdleMs is closed; the next run reopens it', async () => {
    const { driver, settle } = await setup({ engineIdleMs: 150 });
    expect(await settle('delta one')).toMatchObject({ outcome: 'completed' });
    await waitFor(async () => driver.closed === 1);
    expect(driver.opened).toBe(1);
    expect(await settle('delta two')).toMatchObject({ outcome: 'completed' });
    expect(driver.opened).toBe(2);
  });

  it('a session a run is using is not reaped as idle', async () => {
    const { driver, lane: l, settled, frames } = await setup({ engineIdleMs: 100 });
    const { run } = await l.createRun({ threadId: 'th', prompt: 'approval a1\ndelta done' });
    await waitFor(async () => (await frames(run.runId)).some((f) => f.t === 'approval'));
    // Many reaper ticks (pollIntervalMs 20) pass while the run waits for its answer, idle far past 100 ms.
    await new Promise((r) => setTimeout(r, 500));
    expect(driver.closed).toBe(0);
    await l.answerApproval({
      runId: run.runId,
      approvalId: 'a1',
      answer: { outcome: 'selected', optionId: 'ok' },
    });
    expect(await settled(run.runId)).toMatchObject({ outcome: 'completed' });
    expect(driver.opened).toBe(1);
  });

  // A probe's ACP agent took session/prompt and never answered: the run stayed running (and held a run slot of
  // the client) until someone cancelled it by hand.
  it('a turn whose engine goes silent for turnIdleMs fails and its engine session is closed', async () => {
    const { driver, lane: l, settled, settle, frames } = await setup({ turnIdleMs: 200 });
    const { run } = await l.createRun({ threadId: 'th', prompt: 'delta start\nignore-cancel' });
    const done = await settled(run.runId);
    expect(done).toMatchObject({ status: 'failed', outcome: 'failed' });
    expect(done.error).toMatch(/sent nothing for 200 ms and did not end its turn/);
    expect(driver.closed).toBe(1);
    const error = (await frames(run.runId)).find((f) => f.harness === 'engine.error');
    expect(error).toMatchObject({ fatal: true });
    expect(await settle('delta again')).toMatchObject({ outcome: 'completed' });
  });

  it('waiting on an approval is not silence: the turn goes on after an answer that came late', async () => {
    const { driver, lane: l, settled, frames } = await setup({ turnIdleMs: 150 });
    const { run } = await l.createRun({ threadId: 'th', prompt: 'approval a1\ndelta done' });
    await waitFor(async () => (await frames(run.runId)).some((f) => f.t === 'approval'));
    await new Promise((r) => setTimeout(r, 600));
    await l.answerApproval({
      runId: run.runId,
      approvalId: 'a1',
      answer: { outcome: 'selected', optionId: 'ok' },
    });
    expect(await settled(run.runId)).toMatchObject({ outcome: 'completed' });
    expect(driver.closed).toBe(0);
  });

  it('closeThreadEngine closes the thread engine session; the next run reopens it', async () => {
    const { driver, lane: l, settle } = await setup();
    expect(await settle('delta one')).toMatchObject({ outcome: 'completed' });
    expect(driver.closed).toBe(0);
    expect(await l.closeThreadEngine('th')).toBe(true);
    expect(driver.closed).toBe(1);
    expect(await l.closeThreadEngine('th')).toBe(false);
    expect(await settle('delta two')).toMatchObject({ outcome: 'completed' });
    expect(driver.opened).toBe(2);
  });

  it('frames an engine sends between turns are bounded; the next run says how many were dropped', async () => {
    const { driver, settle, frames } = await setup();
    expect(await settle('delta one')).toMatchObject({ outcome: 'completed' });
    const extra = 500;
    for (let i = 0; i < BETWEEN_TURNS_MAX_FRAMES + extra; i++)
      driver.emitBetweenTurns('th', { t: 'idle', i });
    const next = await settle('delta two');
    expect(next).toMatchObject({ status: 'completed', outcome: 'completed' });
    const seen = await frames(next.runId);
    const idle = seen.filter((f) => f.t === 'idle') as unknown as { i: number }[];
    expect(idle).toHaveLength(BETWEEN_TURNS_MAX_FRAMES);
    expect(idle.at(-1)?.i).toBe(BETWEEN_TURNS_MAX_FRAMES - 1);
    const warnings = seen.filter((f) => f.harness === 'engine.error');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ fatal: false, detail: { droppedFrames: extra } });
    expect(warnings[0]?.message).toMatch(/500 more frame/);
  });
});

describe('FrameRouter', () => {
  it('keeps at most the byte limit between turns and counts what it drops', () => {
    const got: JsonValue[] = [];
    const router = new FrameRouter((f) => got.push(f), { frames: 100, bytes: 1000 });
    router.emit({ during: 'run' });
    router.detach();
    for (let i = 0; i < 5; i++) router.emit({ t: 'idle' }, 'x'.repeat(400));
    const later: JsonValue[] = [];
    router.attach((f) => later.push(f));
    expect(got).toEqual([{ during: 'run' }]);
    expect(later).toHaveLength(3);
    expect(later[2]).toMatchObject({
      harness: 'engine.error',
      fatal: false,
      detail: { droppedFrames: 3, droppedBytes: 1200 },
    });
    // Once reported, the count starts again; a closed router delivers nothing.
    router.detach();
    router.attach((f) => later.push(f));
    expect(later).toHaveLength(3);
    router.close();
    router.emit({ t: 'after close' });
    expect(later).toHaveLength(3);
  });
});
