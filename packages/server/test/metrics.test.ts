import { mkdtempSync, rmSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLane, type Lane } from '@agentlane/lane';
import { openStore, type Store } from '@agentlane/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentlaneServer, createObservability, createServer, type Observability } from '../src';
import { type AnyJson, postJson } from './support/harness';
import { createScriptedDriver } from './support/scripted-engine';
import { SseReader } from './support/sse-reader';

const ALL = 'metrics-token-all-threads';
const SCOPED = 'metrics-token-one-thread';

/** One sample of a Prometheus text exposition, e.g. value(text, 'agentlane_runs_total', {status: 'queued'}). */
function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1] as string, l[2] as string]),
    );
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

/**
 * Holds the canonicalizer's outbox lease, so a test can delete a session between its run settling and its
 * canonicalization: `before` holds the next lease before the store takes it, `after` holds a lease that
 * took a run of the thread named once the store has taken it (leased, the run about to be canonicalized).
 */
class OutboxGate {
  #hold: { at: 'before' | 'after'; threadId: string } | undefined;
  #release: () => void = () => {};
  #released: Promise<void> = Promise.resolve();
  #reached: () => void = () => {};
  /** Resolves once a lease is held at the gate. */
  reached: Promise<void> = Promise.resolve();

  hold(at: 'before' | 'after', threadId: string): void {
    this.#hold = { at, threadId };
    this.#released = new Promise((resolve) => {
      this.#release = resolve;
    });
    this.reached = new Promise((resolve) => {
      this.#reached = resolve;
    });
  }

  release(): void {
    this.#hold = undefined;
    this.#release();
  }

  wrap(raw: Store): Store {
    const leaseOutbox: Store['leaseOutbox'] = async (workerId, limit, leaseMs) => {
      if (this.#hold?.at === 'before') {
        this.#reached();
        await this.#released;
      }
      const entries = await raw.leaseOutbox(workerId, limit, leaseMs);
      const hold = this.#hold;
      if (hold?.at === 'after' && entries.some((e) => e.threadId === hold.threadId)) {
        this.#reached();
        await this.#released;
      }
      return entries;
    };
    return new Proxy(raw, {
      get(target, property) {
        if (property === 'leaseOutbox') return leaseOutbox;
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}

let dir: string;
let store: Store;
const gate = new OutboxGate();
const laneLog: string[] = [];
let lane: Lane;
let server: AgentlaneServer;
let observability: Observability;
let api: string;
let metricsUrl: string;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentlane-metrics-'));
  observability = createObservability();
  store = observability.observeStore(gate.wrap(await openStore(join(dir, 'm.db'))));
  const drivers = [createScriptedDriver()];
  lane = createLane({
    store,
    drivers,
    ownerId: 'metrics-test',
    pollIntervalMs: 20,
    log: (_level, message) => void laneLog.push(message),
  });
  await lane.start();
  server = await createServer({
    store,
    lane: observability.observeLane(lane),
    observability,
    engines: { get: (n) => drivers.find((d) => d.name === n), list: () => drivers },
    defaultWorkDir: dir,
    tokens: [
      { token: ALL, threads: '*', name: 'admin' },
      { token: SCOPED, threads: ['t-none'], name: 'scoped' },
    ],
    maxBufferBytes: 64 * 1024,
    slowConsumerMs: 300,
    maxBurstBytes: 8 * 1024 * 1024,
  });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const address = server.app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  api = `${base}/api/harness`;
  metricsUrl = `${base}/metrics`;
});
afterAll(async () => {
  await server.shutdown().catch(() => {});
  await lane.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const scrape = async () => {
  const res = await fetch(metricsUrl, { headers: auth(ALL) });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
};

describe('GET /metrics', () => {
  it('needs a token scoped to all threads when tokens are configured', async () => {
    const none = await fetch(metricsUrl);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect((await fetch(metricsUrl, { headers: auth(SCOPED) })).status).toBe(403);
    expect((await fetch(metricsUrl, { headers: auth(ALL) })).status).toBe(200);
  });

  it('counts what the test did: runs by engine and status, rows, commits, streams, outbox, drops', async () => {
    const session = await postJson(`${api}/sessions`, { engine: 'scripted', title: 'm' }, auth(ALL));
    const threadId = session.json.session.id as string;
    const reader = new SseReader(`${api}/threads/${threadId}/events`, { headers: auth(ALL) });
    await reader.waitFor((r) => r.events.length > 0);
    const runIds: string[] = [];
    for (const prompt of ['hello', 'fail']) {
      const run = await postJson(`${api}/threads/${threadId}/runs`, { prompt }, auth(ALL));
      expect(run.status).toBe(201);
      runIds.push(run.json.run.runId);
      await reader.waitFor(
        (r) => r.events.some((e) => e.type === 'run.canonicalized' && e.runId === run.json.run.runId),
        30_000,
      );
    }
    const text = await scrape();
    const engine = 'scripted';
    expect(value(text, 'agentlane_runs_total', { engine, status: 'queued' })).toBe(2);
    expect(value(text, 'agentlane_runs_total', { engine, status: 'running' })).toBe(2);
    expect(value(text, 'agentlane_runs_total', { engine, status: 'completed' })).toBe(1);
    expect(value(text, 'agentlane_runs_total', { engine, status: 'failed' })).toBe(1);
    expect(value(text, 'agentlane_runs_active', { engine, status: 'running' })).toBe(0);
    // Every committed row has its own deliverySeq, so rows ingested = the thread's head.
    const head = await store.headDeliverySeq(threadId);
    expect(head).toBeGreaterThan(0);
    expect(value(text, 'agentlane_events_ingested_total')).toBe(head);
    expect(value(text, 'agentlane_frames_ingested_total')).toBeGreaterThan(0);
    expect(value(text, 'agentlane_store_commit_seconds_count', { op: 'events' })).toBeGreaterThan(0);
    // The stream was open before the runs: every first revision reached it live.
    const live = reader.events.filter((e) => 'event' in e && e.revision === 1).length;
    expect(value(text, 'agentlane_frame_to_subscriber_seconds_count')).toBe(live);
    expect(value(text, 'agentlane_open_streams')).toBe(1);
    expect(value(text, 'agentlane_outbox_depth')).toBe(0);
    expect(value(text, 'agentlane_outbox_lag_seconds')).toBe(0);
    expect(value(text, 'agentlane_canonicalization_lag_seconds_count')).toBe(2);
    expect(value(text, 'agentlane_slow_consumer_drops_total')).toBe(0);
    reader.close();
    await reader.done;
    const deadline = Date.now() + 5000;
    while (server.context.connections.size > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(value(await scrape(), 'agentlane_open_streams')).toBe(0);
  }, 60_000);

  it('counts a subscriber dropped for not reading', async () => {
    const session = await postJson(`${api}/sessions`, { engine: 'scripted', title: 'slow' }, auth(ALL));
    const threadId = session.json.session.id as string;
    // A stream whose reader never reads: the server ends it once 64 KiB stay unsent for 300 ms.
    const stalled = await new Promise<IncomingMessage>((resolve) =>
      request(`${api}/threads/${threadId}/events`, { headers: auth(ALL) }, (res) => {
        res.pause();
        resolve(res);
      }).end(),
    );
    const run = await postJson(`${api}/threads/${threadId}/runs`, { prompt: 'many 2500 2000' }, auth(ALL));
    expect(run.status).toBe(201);
    const deadline = Date.now() + 60_000;
    while (server.context.connections.size > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    stalled.destroy();
    expect(value(await scrape(), 'agentlane_slow_consumer_drops_total')).toBe(1);
  }, 90_000);

  it('counts the run leases this process holds and the expired ones it takes over', async () => {
    // Its own database and observability, with no lane polling it: a run claimed by a process that is gone,
    // whose lease expires, taken over through the observed store.
    const own = createObservability();
    const raw = await openStore(join(dir, 'leases.db'));
    const observed = own.observeStore(raw);
    await raw.createThread({
      threadId: 't-lease',
      engine: 'scripted',
      title: null,
      workDir: null,
      metadata: {},
    });
    const { run } = await raw.createRun({ threadId: 't-lease', prompt: 'held' });
    expect(await raw.claimRun(run.runId, 'gone-process', 1)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    expect(await observed.takeExpiredRun(run.runId, 'me', 60_000)).not.toBeNull();
    expect(await observed.renewRunLeases('me', 60_000)).toHaveLength(1);
    let text = await own.metrics.registry.metrics();
    expect(value(text, 'agentlane_run_leases_reclaimed_total')).toBe(1);
    expect(value(text, 'agentlane_run_leases_held')).toBe(1);
    await observed.releaseRunLeases('me');
    text = await own.metrics.registry.metrics();
    expect(value(text, 'agentlane_run_leases_held')).toBe(0);
    // The same figures through the hooks, for lease code outside the store.
    own.leases.held(2);
    own.leases.reclaimed(2);
    text = await own.metrics.registry.metrics();
    expect(value(text, 'agentlane_run_leases_held')).toBe(2);
    expect(value(text, 'agentlane_run_leases_reclaimed_total')).toBe(3);
    await raw.close();
  });

  it('drops from the outbox a run whose session is deleted before or during its canonicalization', async () => {
    const engine = 'scripted';
    // A session whose run settles, deleted before (`before`) or after (`after`) the canonicalizer leased the
    // run: either way the run and its outbox row are gone and its canonicalization can never happen.
    const settleThenDelete = async (at: 'before' | 'after') => {
      const session = await postJson(`${api}/sessions`, { engine, title: at }, auth(ALL));
      const threadId = session.json.session.id as string;
      const reader = new SseReader(`${api}/threads/${threadId}/events`, { headers: auth(ALL) });
      await reader.waitFor((r) => r.events.length > 0);
      gate.hold(at, threadId);
      const created = await postJson(`${api}/threads/${threadId}/runs`, { prompt: 'hello' }, auth(ALL));
      expect(created.status).toBe(201);
      const runId = created.json.run.runId as string;
      const settled = (e: AnyJson) =>
        e.type === 'run.status' && e.runId === runId && e.status === 'completed';
      await reader.waitFor((r) => r.events.some(settled), 30_000);
      await gate.reached;
      // Settled, not canonicalized: it waits in the outbox.
      expect(value(await scrape(), 'agentlane_outbox_depth')).toBe(1);
      const deleted = await fetch(`${api}/sessions/${threadId}`, { method: 'DELETE', headers: auth(ALL) });
      expect(deleted.status).toBe(204);
      reader.close();
      gate.release();
      return runId;
    };

    // The runs of the tests before (the slow consumer's may still be running) end and are canonicalized first.
    const idle = (text: string) =>
      value(text, 'agentlane_outbox_depth') === 0 &&
      !value(text, 'agentlane_runs_active', { engine, status: 'queued' }) &&
      !value(text, 'agentlane_runs_active', { engine, status: 'running' });
    const drained = Date.now() + 30_000;
    while (!idle(await scrape()) && Date.now() < drained) await new Promise((r) => setTimeout(r, 50));
    const canonicalizedBefore = value(await scrape(), 'agentlane_canonicalization_lag_seconds_count');
    await settleThenDelete('before');
    let text = await scrape();
    expect(value(text, 'agentlane_outbox_depth')).toBe(0);
    expect(value(text, 'agentlane_outbox_lag_seconds')).toBe(0);

    // The probe's case: the lease was taken, the canonicalizer then finds the run gone (and logs a retry).
    const runId = await settleThenDelete('after');
    const deadline = Date.now() + 10_000;
    while (!laneLog.some((m) => m.includes(runId)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(laneLog.find((m) => m.includes(runId))).toContain('failed; will retry');
    text = await scrape();
    expect(value(text, 'agentlane_outbox_depth')).toBe(0);
    expect(value(text, 'agentlane_outbox_lag_seconds')).toBe(0);
    // Neither deleted run counts as canonicalized.
    expect(value(text, 'agentlane_canonicalization_lag_seconds_count')).toBe(canonicalizedBefore);
  }, 60_000);

  it('drops from the outbox a run another process canonicalized', async () => {
    // Its own database and observability: this process settles the run, "another" (the raw store) completes it.
    const own = createObservability();
    const raw = await openStore(join(dir, 'elsewhere.db'));
    const observed = own.observeStore(raw);
    await raw.createThread({
      threadId: 't-elsewhere',
      engine: 'scripted',
      title: null,
      workDir: null,
      metadata: {},
    });
    const { run } = await raw.createRun({ threadId: 't-elsewhere', prompt: 'x' });
    expect(await raw.claimRun(run.runId, 'me', 60_000)).not.toBeNull();
    await observed.finalizeRun(run.runId, 'completed');
    expect(value(await own.metrics.registry.metrics(), 'agentlane_outbox_depth')).toBe(1);
    expect(await raw.completeCanonicalization(run.runId, await raw.sealSource(run.runId))).not.toBeNull();
    const text = await own.metrics.registry.metrics();
    expect(value(text, 'agentlane_outbox_depth')).toBe(0);
    expect(value(text, 'agentlane_outbox_lag_seconds')).toBe(0);
    await raw.close();
  });

  it('drops from runs_active a run another process claimed or settled', async () => {
    // This process created two runs; "another" (the raw store) claims one and settles the other.
    const own = createObservability();
    const raw = await openStore(join(dir, 'active-elsewhere.db'));
    const observed = own.observeStore(raw);
    await raw.createThread({
      threadId: 't-active',
      engine: 'scripted',
      title: null,
      workDir: null,
      metadata: {},
    });
    const claimed = (await observed.createRun({ threadId: 't-active', prompt: 'a' })).run;
    const settled = (await observed.createRun({ threadId: 't-active', prompt: 'b' })).run;
    const queued = { engine: 'scripted', status: 'queued' };
    expect(value(await own.metrics.registry.metrics(), 'agentlane_runs_active', queued)).toBe(2);
    expect(await raw.claimRun(claimed.runId, 'another', 60_000)).not.toBeNull();
    expect(await raw.claimRun(settled.runId, 'another', 60_000)).not.toBeNull();
    await raw.finalizeRun(settled.runId, 'completed');
    const text = await own.metrics.registry.metrics();
    expect(value(text, 'agentlane_runs_active', queued)).toBe(0);
    expect(value(text, 'agentlane_runs_active', { engine: 'scripted', status: 'running' }) ?? 0).toBe(0);
    await raw.close();
  });
});
