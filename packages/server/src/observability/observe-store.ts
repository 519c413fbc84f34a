import type { RunRecord, Store } from '@agentlane/store';
import type { Metrics } from './metrics.js';

/** What the store decorator tells besides metrics: a run's canonical history is complete (traces use it). */
export interface StoreObserver {
  onCanonicalized?(run: { runId: string; threadId: string }): void;
}

const seconds = (startedAt: number) => (performance.now() - startedAt) / 1000;

/**
 * The store as the lane sees it, with every call that moves a run or commits rows counted on the way
 * through. A decorator instead of hooks inside the store and lane: both stay free of any metrics library,
 * and what is measured is what the lane really awaited (an append resolves once its group commit is durable).
 */
export function observeStore(store: Store, metrics: Metrics, observer: StoreObserver = {}): Store {
  const engineOf = new Map<string, string>();
  const active = new Map<string, { engine: string; status: 'queued' | 'running' }>();
  // Settled runs waiting for canonicalization, with when they entered the outbox (ms since epoch).
  const outbox = new Map<string, number>();

  const threadEngine = async (threadId: string): Promise<string> => {
    const known = engineOf.get(threadId);
    if (known !== undefined) return known;
    const engine = (await store.getThread(threadId).catch(() => null))?.engine ?? 'unknown';
    // Bounded: one entry per thread seen, dropped wholesale past a size no single process needs.
    if (engineOf.size > 10_000) engineOf.clear();
    engineOf.set(threadId, engine);
    return engine;
  };
  const enter = async (run: RunRecord, status: 'queued' | 'running') => {
    const engine = await threadEngine(run.threadId);
    const before = active.get(run.runId);
    if (before) metrics.runsActive.dec({ engine, status: before.status });
    active.set(run.runId, { engine, status });
    metrics.runsActive.inc({ engine, status });
    metrics.runs.inc({ engine, status });
  };
  const settle = async (run: RunRecord) => {
    const engine = await threadEngine(run.threadId);
    const before = active.get(run.runId);
    if (before) metrics.runsActive.dec({ engine, status: before.status });
    active.delete(run.runId);
    metrics.runs.inc({ engine, status: run.outcome ?? run.status });
    if (!outbox.has(run.runId)) outbox.set(run.runId, Date.now());
  };
  const claimed = async (run: RunRecord | null) => {
    if (run) await enter(run, 'running');
    return run;
  };
  const timed = async <T>(op: 'events' | 'frames', call: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await call();
    metrics.commitSeconds.observe({ op }, seconds(started));
    return result;
  };

  metrics.sampled.outboxDepth = () => outbox.size;
  metrics.sampled.outboxLagSeconds = () => {
    let oldest = Number.POSITIVE_INFINITY;
    for (const at of outbox.values()) oldest = Math.min(oldest, at);
    return outbox.size === 0 ? 0 : Math.max(0, (Date.now() - oldest) / 1000);
  };

  const overrides: Partial<Store> = {
    async createRun(input) {
      const result = await store.createRun(input);
      if (result.created) await enter(result.run, 'queued');
      return result;
    },
    claimQueuedRun: async (ownerId, leaseMs) => claimed(await store.claimQueuedRun(ownerId, leaseMs)),
    claimRun: async (runId, ownerId, leaseMs) => claimed(await store.claimRun(runId, ownerId, leaseMs)),
    // The owner renews all its leases in one call, so its answer is the number held right now.
    async renewRunLeases(ownerId, leaseMs) {
      const held = await store.renewRunLeases(ownerId, leaseMs);
      metrics.leasesHeld.set(held.length);
      return held;
    },
    async takeExpiredRun(runId, ownerId, leaseMs) {
      const taken = await store.takeExpiredRun(runId, ownerId, leaseMs);
      if (taken) metrics.leasesReclaimed.inc();
      return taken;
    },
    async releaseRunLeases(ownerId, runIds) {
      const released = await store.releaseRunLeases(ownerId, runIds);
      if (runIds === undefined) metrics.leasesHeld.set(0);
      return released;
    },
    async finalizeRun(runId, status, error, outcome) {
      const run = await store.finalizeRun(runId, status, error, outcome);
      await settle(run);
      return run;
    },
    async appendFrames(runId, frames) {
      const records = await timed('frames', () => store.appendFrames(runId, frames));
      metrics.framesIngested.inc(records.length);
      return records;
    },
    async appendEvents(threadId, writes, provisional) {
      const result = await timed('events', () => store.appendEvents(threadId, writes, provisional));
      if (result.inserted.length > 0) metrics.eventsIngested.inc(result.inserted.length);
      return result;
    },
    async leaseOutbox(workerId, limit, leaseMs) {
      const entries = await store.leaseOutbox(workerId, limit, leaseMs);
      // Runs another process settled (or this one before a restart) become visible here.
      for (const e of entries) if (!outbox.has(e.runId)) outbox.set(e.runId, Date.parse(e.enqueuedAt));
      return entries;
    },
    async completeCanonicalization(runId, expected) {
      const record = await store.completeCanonicalization(runId, expected);
      if (record) {
        const enqueuedAt = outbox.get(runId);
        outbox.delete(runId);
        if (enqueuedAt !== undefined)
          metrics.canonicalizationSeconds.observe(Math.max(0, (Date.now() - enqueuedAt) / 1000));
        observer.onCanonicalized?.({ runId, threadId: record.threadId });
      }
      return record;
    },
  };

  return new Proxy(store, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof Store];
      const value = Reflect.get(target, property, target);
      // Methods run on the real store (its private fields are not reachable through a proxy).
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
