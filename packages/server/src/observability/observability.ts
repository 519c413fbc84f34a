import type { AuditableCall } from '@agentlane/contract';
import type { Store } from '@agentlane/store';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context';
import type { LanePort } from '../lane-port';
import { createMetrics, type Metrics } from './metrics';
import { metricsRoute } from './metrics-route';
import { observeAudit } from './observe-audit';
import { observeLane } from './observe-lane';
import { observeStore } from './observe-store';

/** What run-lease code reports (a lease is a run this process keeps alive; a reclaim takes over a lost one). */
export interface RunLeaseObserver {
  /** How many run leases this process holds now. */
  held(count: number): void;
  /** This process reclaimed `count` runs whose owner's lease had expired. */
  reclaimed(count?: number): void;
}

/**
 * Metrics for one `agentlane serve`: wrap the store, the audit ledger and the lane port with it before
 * handing them on, and pass it to createServer, which mounts GET /metrics.
 */
export interface Observability {
  readonly metrics: Metrics;
  observeStore(store: Store): Store;
  observeAudit<T extends { record(rows: readonly AuditableCall[]): Promise<unknown> }>(ledger: T): T;
  observeLane(lane: LanePort): LanePort;
  readonly leases: RunLeaseObserver;
  /** Mounts GET /metrics and hooks the server's own counters (open streams, slow-consumer drops). */
  register(app: FastifyInstance, context: ServerContext): void;
  /** Flushes what is buffered for export. */
  close(): Promise<void>;
}

export function createObservability(): Observability {
  const metrics = createMetrics();
  return {
    metrics,
    observeStore: (store) => observeStore(store, metrics),
    observeAudit: (ledger) => observeAudit(ledger, metrics),
    observeLane: (lane) => observeLane(lane, metrics),
    leases: {
      held: (count) => metrics.leasesHeld.set(count),
      reclaimed: (count = 1) => metrics.leasesReclaimed.inc(count),
    },
    register(app, context) {
      context.sse.onSlowConsumer = () => metrics.slowConsumerDrops.inc();
      metricsRoute(app, context, metrics);
    },
    close: async () => {},
  };
}
