import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createSqliteStore, type Store, StoreError } from '@agentlane/store';
import { afterEach, describe, expect, it } from 'vitest';
import { createLane, ENGINE_LOST, type Lane, SYSTEM_ANSWERER } from '../src';
import { Collector, waitFor } from './helpers/collect';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

const child = fileURLToPath(new URL('./helpers/lease-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Starts the child executing `prompt`; resolves with the run id and a SIGKILL for it. */
function startChild(path: string, threadId: string, prompt: string) {
  const p = spawn(process.execPath, ['--import', 'tsx', child, path, threadId, prompt], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const kill = () =>
    new Promise<void>((resolve) => {
      if (p.exitCode !== null || p.signalCode !== null) return resolve();
      p.once('exit', () => resolve());
      p.kill('SIGKILL');
    });
  const runId = new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => {
      out += String(d);
      const m = /run (\S+)\n/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    p.stderr.on('data', (d) => {
      err += String(d);
    });
    p.on('exit', () => reject(new Error(`child exited: ${err}`)));
  });
  return { runId, kill };
}

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e) => (e instanceof StoreError ? e.code : String(e)),
  );

/**
 * A lane (owner `live`, a 300 ms lease renewed every 50 ms) on `store` with its method `key` replaced by
 * what `replace` makes of the original (bound to the store).
 */
function laneWith<K extends keyof Store>(
  store: Store,
  key: K,
  replace: (original: Store[K]) => Store[K],
): Lane {
  const replaced = replace((store[key] as (...a: unknown[]) => unknown).bind(store) as Store[K]);
  const wrapped: Store = new Proxy(store, {
    get(target, name, receiver) {
      if (name === key) return replaced;
      const value = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return createLane({
    store: wrapped,
    drivers: [createTestDriver()],
    ownerId: 'live',
    pollIntervalMs: 20,
    runLeaseMs: 300,
    runLeaseRenewMs: 50,
  });
}

describe('run leases (SQLite, a SIGKILLed process and several live ones on one file)', () => {
  let t: TestStore;
  const opened: { lane: Lane; store: Store }[] = [];
  const children: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const kill of children.splice(0)) await kill();
    for (const o of opened.splice(0)) {
      await o.lane.stop();
      await o.store.close();
    }
    await t.cleanup();
  });

  const liveLane = async (path: string, name: string) => {
    const store = createSqliteStore({ path });
    await store.migrate();
    const lane = createLane({
      store,
      drivers: [createTestDriver()],
      ownerId: name,
      pollIntervalMs: 20,
      runLeaseMs: 1000,
      runLeaseRenewMs: 100,
    });
    opened.push({ lane, store });
    return { lane, store };
  };

  it('exactly one live process settles the dead one’s run, cancels its open approval as system; answers get 409', async () => {
    t = await sqliteTestStore();
    const path = t.path as string;
    await t.store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
    const dead = startChild(path, 'th', 'delta before\napproval a1\ndelta after');
    children.push(dead.kill);
    const runId = await dead.runId;
    await waitFor(async () =>
      (await t.store.latestEvents({ threadId: 'th', runId })).some((r) => r.kind === 'approval.requested'),
    );
    // While its process lives, the run takes answers (the child would deliver them): not tested here, the
    // answer would complete the run. Killed, its lease runs out.
    await dead.kill();
    const killedAt = Date.now();
    const lanes = await Promise.all(['live-1', 'live-2', 'live-3'].map((n) => liveLane(path, n)));
    const c = new Collector();
    await lanes[0]?.lane.subscribe('th', 0, c.listener);
    await Promise.all(lanes.map((l) => l.lane.start()));
    const run = await waitFor(async () => {
      const r = await t.store.getRun(runId);
      return r?.canonicalizedAt ? r : null;
    }, 20_000);
    const settledAfterMs = Date.now() - killedAt;
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(new RegExp(`^${ENGINE_LOST}: lease-child-\\d+ stopped renewing its lease$`));
    // Settled once: one fatal error and one end of turn in the source lane, however many processes raced.
    const frames = (await t.store.readFrames(runId)).map((f) => f.frame as { harness?: string });
    expect(frames.filter((f) => f.harness === 'engine.error')).toHaveLength(1);
    expect(frames.filter((f) => f.harness === 'turn.ended')).toHaveLength(1);
    const latest = await t.store.latestEvents({ threadId: 'th', runId });
    const resolved = latest.find((r) => r.kind === 'approval.resolved');
    expect(resolved?.event.payload).toMatchObject({
      approvalId: 'a1',
      outcome: 'cancelled',
      answeredBy: SYSTEM_ANSWERER,
    });
    // The status signal carries the run's status version: the failed one is the highest.
    await c.until((x) => x.events.some((e) => e.type === 'run.status' && e.status === 'failed'));
    const failed = c.events.find((e) => e.type === 'run.status' && e.status === 'failed');
    expect(failed).toMatchObject({ statusVersion: run.statusVersion });
    expect(run.statusVersion).toBe(3);
    // Nobody executes the run any more: an answer is refused, not accepted and dropped.
    const answer = lanes[1]?.lane.answerApproval({
      runId,
      approvalId: 'a1',
      answer: { outcome: 'selected', optionId: 'allow' },
    });
    expect(await code(answer as Promise<unknown>)).toBe('conflict');
    expect(settledAfterMs).toBeLessThan(15_000);
  }, 60_000);

  it('an answer accepted while a dead process’s lease still held is the resolution the settle writes', async () => {
    t = await sqliteTestStore();
    const path = t.path as string;
    await t.store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
    const dead = startChild(path, 'th', 'approval a1\ndelta after');
    children.push(dead.kill);
    const runId = await dead.runId;
    await waitFor(async () =>
      (await t.store.latestEvents({ threadId: 'th', runId })).some((r) => r.kind === 'approval.requested'),
    );
    await dead.kill();
    // Its lease (1000 ms, renewed every 250 ms) still holds: the answer is accepted, as the API would accept it.
    const reader = createLane({ store: t.store, drivers: [], ownerId: 'reader', execute: false });
    await reader.answerApproval({
      runId,
      approvalId: 'a1',
      answer: { outcome: 'selected', optionId: 'allow', answeredBy: 'client' },
      unlessResolved: true,
    });
    await reader.stop();
    const { lane } = await liveLane(path, 'live');
    await lane.start();
    const run = await waitFor(async () => {
      const r = await t.store.getRun(runId);
      return r?.canonicalizedAt ? r : null;
    }, 20_000);
    expect(run.status).toBe('failed');
    const resolved = (await t.store.latestEvents({ threadId: 'th', runId })).find(
      (r) => r.kind === 'approval.resolved',
    );
    expect(resolved?.event.payload).toMatchObject({
      approvalId: 'a1',
      outcome: 'selected',
      optionId: 'allow',
      answeredBy: 'client',
    });
  });

  it('a database outage longer than the lease fails no run whose process lives: leases are renewed first', async () => {
    t = await sqliteTestStore({ fast: true });
    const path = t.path as string;
    await t.store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
    // Both processes lose the database (their lease calls fail as a refused connection would); the one that
    // will reclaim gets it back first, the run's owner a moment later, as reconnects happen in any order.
    const down = { owner: false, other: false };
    const outage = (store: Store, side: keyof typeof down): Store =>
      new Proxy(store, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (typeof value !== 'function') return value;
          const leaseCall = ['renewRunLeases', 'listExpiredRuns', 'takeExpiredRun'].includes(String(key));
          return (...args: unknown[]) => {
            if (leaseCall && down[side])
              return Promise.reject(
                Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
              );
            return value.apply(target, args);
          };
        },
      });
    const open = async (name: string, side: keyof typeof down) => {
      const store = createSqliteStore({ path });
      await store.migrate();
      const lane = createLane({
        store: outage(store, side),
        drivers: [createTestDriver()],
        ownerId: name,
        pollIntervalMs: 20,
        runLeaseMs: 1000,
        runLeaseRenewMs: 100,
      });
      opened.push({ lane, store });
      return lane;
    };
    const owner = await open('owner', 'owner');
    await owner.start();
    const { run } = await owner.createRun({
      threadId: 'th',
      prompt: 'delta before\nsleep 3000\ndelta after',
    });
    await waitFor(async () => ((await t.store.getRun(run.runId))?.status === 'running' ? true : null));
    const other = await open('other', 'other');
    await other.start();
    down.owner = true;
    down.other = true;
    await new Promise((r) => setTimeout(r, 1300)); // past the 1000 ms lease
    down.other = false;
    await new Promise((r) => setTimeout(r, 300)); // the reclaiming process sees the expired lease meanwhile
    down.owner = false;
    const settled = await waitFor(async () => {
      const r = await t.store.getRun(run.runId);
      return r?.status === 'completed' || r?.status === 'failed' ? r : null;
    }, 20_000);
    expect(settled.status).toBe('completed');
    expect(settled.error).toBeNull();
    const texts = (await t.store.latestEvents({ threadId: 'th', runId: run.runId }))
      .filter((r) => r.kind === 'message.delta')
      .map((r) => (r.event.payload as { delta: string }).delta);
    expect(texts).toEqual(['before', 'after']);
  });

  it('after its last run ends the process renews once more, so what it reports holding drops to none', async () => {
    t = await sqliteTestStore({ fast: true });
    const { store } = t;
    await store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
    const answers: number[] = [];
    const counted = new Proxy(store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== 'renewRunLeases' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const held = (await value.apply(target, args)) as unknown[];
          answers.push(held.length);
          return held;
        };
      },
    });
    const lane = createLane({
      store: counted,
      drivers: [createTestDriver()],
      ownerId: 'idle-after',
      pollIntervalMs: 20,
      runLeaseMs: 1000,
      runLeaseRenewMs: 50,
    });
    await lane.start();
    const { run } = await lane.createRun({ threadId: 'th', prompt: 'delta a\nsleep 300' });
    await waitFor(async () => ((await store.getRun(run.runId))?.status === 'completed' ? true : null));
    await waitFor(async () => (answers.at(-1) === 0 ? true : null));
    const calls = answers.length;
    await new Promise((r) => setTimeout(r, 300));
    // Idle: no more renewals once none is held.
    expect(answers.length).toBe(calls);
    expect(answers.some((n) => n === 1)).toBe(true);
    await lane.stop();
  });

  it('a settle of a lost run that hangs (a stopped process holds its locks) does not stop this process renewing its own runs', async () => {
    t = await sqliteTestStore({ fast: true });
    const { store } = t;
    await store.createThread({ threadId: 'lost', engine: 'test', title: null, workDir: null, metadata: {} });
    await store.createThread({ threadId: 'own', engine: 'test', title: null, workDir: null, metadata: {} });
    // A run of a process that is gone: its lease is over at once.
    const reader = createLane({ store, drivers: [], ownerId: 'reader', execute: false });
    const lost = (await reader.createRun({ threadId: 'lost', prompt: 'x' })).run;
    await store.claimRun(lost.runId, 'gone', 1);
    await reader.stop();
    // Expired before this process starts: the start's own settle hangs too (it held the start for good).
    await new Promise((r) => setTimeout(r, 5));
    // Taking it over never answers, as a write waiting on a stopped process's row lock would not.
    let takes = 0;
    const lane = laneWith(store, 'takeExpiredRun', () => () => {
      takes++;
      return new Promise(() => {});
    });
    opened.push({ lane, store });
    await lane.start();
    await waitFor(async () => (takes > 0 ? true : null));
    // Its own run outlives many lease periods: renewed all along, it completes here, not "engine process lost".
    const { run } = await lane.createRun({ threadId: 'own', prompt: 'delta a\nsleep 1500\ndelta b' });
    const done = await waitFor(async () => {
      const r = await store.getRun(run.runId);
      return r?.status === 'completed' || r?.status === 'failed' ? r : null;
    });
    expect(done.status).toBe('completed');
    expect(done.error).toBeNull();
    expect(takes).toBe(1);
  });

  it('a run whose end cannot be written (the disk full) stays with this process and is settled once it can be', async () => {
    t = await sqliteTestStore({ fast: true });
    const { store } = t;
    await store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
    let refusals = 2;
    const lane = laneWith(
      store,
      'finalizeRun',
      (finalize) =>
        (...args) =>
          refusals-- > 0
            ? Promise.reject(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))
            : finalize(...args),
    );
    opened.push({ lane, store });
    await lane.start();
    const { run } = await lane.createRun({ threadId: 'th', prompt: 'delta a' });
    const done = await waitFor(async () => {
      const r = await store.getRun(run.runId);
      return r?.status === 'completed' || r?.status === 'failed' ? r : null;
    });
    // Before: the run left the executor ("crashed the executor"), and its lease ran out: "engine process lost".
    expect(done).toMatchObject({ status: 'completed', error: null });
    expect(refusals).toBeLessThan(0);
  });

  it('an answer to a running run whose lease expired, or to a queued run, is refused with conflict', async () => {
    t = await sqliteTestStore({ fast: true });
    const { store } = t;
    await store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
    const reader = createLane({ store, drivers: [], ownerId: 'reader', execute: false });
    const queued = (await reader.createRun({ threadId: 'th', prompt: 'x' })).run;
    const q = reader.answerQuestion({
      runId: queued.runId,
      questionId: 'q1',
      answer: { outcome: 'declined' },
    });
    expect(await code(q)).toBe('conflict');
    await store.claimRun(queued.runId, 'gone', 1);
    await new Promise((r) => setTimeout(r, 5));
    const a = reader.answerApproval({
      runId: queued.runId,
      approvalId: 'a1',
      answer: { outcome: 'cancelled' },
    });
    expect(await code(a)).toBe('conflict');
    await reader.stop();
  });

  it('stop({ graceMs }) hands a running run back (not cancelled): a live process settles it at once', async () => {
    t = await sqliteTestStore({ fast: true });
    const path = t.path as string;
    await t.store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
    await t.store.createThread({ threadId: 'th2', engine: 'test', title: null, workDir: null, metadata: {} });
    const a = await liveLane(path, 'stopping');
    await a.lane.start();
    const { run } = await a.lane.createRun({ threadId: 'th', prompt: 'delta x\nwait-cancel' });
    // A run waiting for an answer is handed back at once (its turn returns before the grace period ends).
    const asking = (await a.lane.createRun({ threadId: 'th2', prompt: 'approval a9' })).run;
    await waitFor(async () => (await t.store.getRun(run.runId))?.status === 'running');
    await waitFor(async () =>
      (await t.store.readFrames(asking.runId)).some((f) => (f.frame as { t?: string }).t === 'approval'),
    );
    const began = Date.now();
    await a.lane.stop({ graceMs: 600 });
    expect(Date.now() - began).toBeLessThan(1500);
    const released = await t.store.getRun(run.runId);
    expect(released).toMatchObject({ status: 'running', outcome: null });
    const b = await liveLane(path, 'survivor');
    await b.lane.start();
    const settled = await waitFor(async () => {
      const r = await t.store.getRun(run.runId);
      return r?.canonicalizedAt ? r : null;
    });
    expect(settled).toMatchObject({ status: 'failed', outcome: 'failed' });
    expect(settled.error).toBe(`${ENGINE_LOST}: stopping shut down before the run finished`);
    const frames = (await t.store.readFrames(run.runId)).map((f) => f.frame as { harness?: string });
    expect(frames.some((f) => f.harness === 'turn.cancel_requested')).toBe(false);
    const other = await waitFor(async () => {
      const r = await t.store.getRun(asking.runId);
      return r?.canonicalizedAt ? r : null;
    });
    expect(other.error).toBe(`${ENGINE_LOST}: stopping shut down before the run finished`);
  });
});
