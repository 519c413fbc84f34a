import type { Store } from '@agentlane/store';
import type { Metrics } from './metrics.js';
import { RunMeter } from './run-meter.js';

/** What the store decorator tells besides metrics: a run's canonical history is complete (traces use it). */
export interface StoreObserver {
  onCanonicalized?(run: { runId: string; threadId: string }): void;
}

/**
 * The store as the lane sees it, with every call that moves a run or commits rows counted on the way
 * through. A decorator instead of hooks inside the store and lane: both stay free of any metrics library,
 * and what is measured is what the lane really awaited (an append resolves once its group commit is durable).
 */
export function observeStore(store: Store, metrics: Metrics, observer: StoreObserver = {}): Store {
  const meter = new RunMeter(store, metrics);
  const overrides: Partial<Store> = {
    ...runOverrides(store, meter),
    ...leaseOverrides(store, metrics),
    ...commitOverrides(store, meter, metrics, observer),
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

/** A run created, claimed or finalized moves among the active runs. */
function runOverrides(store: Store, meter: RunMeter): Partial<Store> {
  return {
    async createRun(input) {
      const result = await store.createRun(input);
      if (result.created) await meter.enter(result.run, 'queued');
      return result;
    },
    claimQueuedRun: async (ownerId, leaseMs) => meter.claimed(await store.claimQueuedRun(ownerId, leaseMs)),
    claimRun: async (runId, ownerId, leaseMs) => meter.claimed(await store.claimRun(runId, ownerId, leaseMs)),
    async finalizeRun(runId, status, error, outcome) {
      const run = await store.finalizeRun(runId, status, error, outcome);
      await meter.settle(run);
      return run;
    },
  };
}

function leaseOverrides(store: Store, metrics: Metrics): Partial<Store> {
  return {
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
  };
}

/** Rows committed, and the outbox that turns a settled run's rows canonical. */
function commitOverrides(
  store: Store,
  meter: RunMeter,
  metrics: Metrics,
  observer: StoreObserver,
): Partial<Store> {
  return {
    async appendFrames(runId, frames, options) {
      const records = await meter.timed('frames', () => store.appendFrames(runId, frames, options));
      metrics.framesIngested.inc(records.length);
      return records;
    },
    async appendEvents(threadId, writes, provisional, options) {
      const result = await meter.timed('events', () =>
        store.appendEvents(threadId, writes, provisional, options),
      );
      if (result.inserted.length > 0) metrics.eventsIngested.inc(result.inserted.length);
      return result;
    },
    async leaseOutbox(workerId, limit, leaseMs) {
      const entries = await store.leaseOutbox(workerId, limit, leaseMs);
      // Runs another process settled (or this one before a restart) become visible here.
      for (const e of entries) meter.outboxSeen(e.runId, Date.parse(e.enqueuedAt));
      return entries;
    },
    async completeCanonicalization(runId, expected) {
      const record = await store.completeCanonicalization(runId, expected);
      if (record) {
        meter.canonicalized(runId);
        observer.onCanonicalized?.({ runId, threadId: record.threadId });
      }
      return record;
    },
  };
}
