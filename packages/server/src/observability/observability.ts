import type { AuditableCall } from '@agentlane/contract';
import type { Store } from '@agentlane/store';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import type { LanePort } from '../lane-port.js';
import { trackWrites, WriteHealth } from '../write-health.js';
import { createMetrics, type Metrics } from './metrics.js';
import { metricsRoute } from './metrics-route.js';
import { observeAudit } from './observe-audit.js';
import { observeLane } from './observe-lane.js';
import { observeStore } from './observe-store.js';
import { tracingConfig } from './tracing-config.js';
import type { startRunTraces } from './tracing-setup.js';

/** What run-lease code reports (a lease is a run this process keeps alive; a reclaim takes over a lost one). */
export interface RunLeaseObserver {
  /** How many run leases this process holds now. */
  held(count: number): void;
  /** This process reclaimed `count` runs whose owner's lease had expired. */
  reclaimed(count?: number): void;
}

export interface ObservabilityOptions {
  /** Where the OTEL_* variables are read (default process.env); no OTLP endpoint means no tracing. */
  env?: NodeJS.ProcessEnv;
  version?: string;
  /** Told when a run could not be traced or spans could not be flushed; never secrets. */
  log?: (message: string) => void;
}

/**
 * Metrics and traces for one `agentlane serve`: wrap the store, the audit ledger and the lane port with it
 * before handing them on, and pass it to createServer, which mounts GET /metrics. Traces are exported over
 * OTLP/HTTP when the standard OTEL_EXPORTER_OTLP_* variables are set.
 */
export interface Observability {
  readonly metrics: Metrics;
  /** Wraps the store: its calls are counted, and its writes tell whether the disk still takes them. */
  observeStore(store: Store): Store;
  /** What the observed store's writes said of the disk (createServer reports it in GET /health). */
  readonly writes: WriteHealth;
  observeAudit<T extends { record(rows: readonly AuditableCall[]): Promise<unknown> }>(ledger: T): T;
  observeLane(lane: LanePort): LanePort;
  readonly leases: RunLeaseObserver;
  /** Mounts GET /metrics and hooks the server's own counters (open streams, slow-consumer drops). */
  register(app: FastifyInstance, context: ServerContext): void;
  /** Where spans go, when tracing is on. */
  readonly tracing: { url: string; captureContent: boolean } | undefined;
  /** Flushes the spans not yet exported and stops the exporter. */
  close(): Promise<void>;
}

export function createObservability(options: ObservabilityOptions = {}): Observability {
  const metrics = createMetrics();
  const log = options.log ?? (() => {});
  const config = tracingConfig(options.env ?? process.env);
  // Loaded in the background: work queued on it before it is ready runs in order once it is.
  // A tracer that cannot start is logged once and leaves runs untraced.
  const tracing: Promise<ReturnType<typeof startRunTraces> | undefined> | undefined = config
    ? import('./tracing-setup.js')
        .then((m) => m.startRunTraces(config, options.version ?? '0.1.0', log))
        .catch((err: Error) => {
          log(`tracing did not start: ${err.message}`);
          return undefined;
        })
    : undefined;
  const traces = tracing && {
    canonicalized: (store: Store, runId: string) =>
      void tracing.then((t) => t?.traces.canonicalized(store, runId)),
    rows: (rows: readonly AuditableCall[]) => void tracing.then((t) => t?.traces.rows(rows)),
  };
  const writes = new WriteHealth();
  return {
    metrics,
    tracing: config,
    writes,
    observeStore: (store) =>
      trackWrites(
        observeStore(store, metrics, {
          ...(traces ? { onCanonicalized: ({ runId }) => traces.canonicalized(store, runId) } : {}),
        }),
        writes,
      ),
    observeAudit: (ledger) => observeAudit(ledger, metrics, traces ? (rows) => traces.rows(rows) : undefined),
    observeLane: (lane) => observeLane(lane, metrics),
    leases: {
      held: (count) => metrics.leasesHeld.set(count),
      reclaimed: (count = 1) => metrics.leasesReclaimed.inc(count),
    },
    register(app, context) {
      context.sse.onSlowConsumer = () => metrics.slowConsumerDrops.inc();
      metricsRoute(app, context, metrics);
    },
    close: async () => {
      const started = await tracing;
      if (!started) return;
      await started.traces.idle();
      await started.close().catch((err: Error) => log(`traces not flushed: ${err.message}`));
    },
  };
}
