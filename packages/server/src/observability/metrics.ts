import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds buckets for store commits and live delivery: sub-millisecond fsyncs up to multi-second stalls. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Every Prometheus series agentlane exports, on a registry of its own (not prom-client's global one), so
 * two servers in one process (tests, embedders) never share or double-register series.
 */
export function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  // Gauges read at scrape time from whoever owns the figure (the server's connections, the store decorator,
  // which checks its outbox entries against the store first).
  const sampled: {
    openStreams: () => number;
    outboxDepth: () => number | Promise<number>;
    outboxLagSeconds: () => number | Promise<number>;
    /** Checks the active runs against the store before a scrape reads them (runs moved by other processes). */
    activeRuns: () => void | Promise<void>;
  } = { openStreams: () => 0, outboxDepth: () => 0, outboxLagSeconds: () => 0, activeRuns: () => undefined };
  return {
    registry,
    sampled,
    runs: new Counter({
      name: 'agentlane_runs_total',
      help: 'Run transitions this process made, by engine and the status entered (queued, running, completed, failed, cancelled)',
      labelNames: ['engine', 'status'] as const,
      registers,
    }),
    runsActive: new Gauge({
      name: 'agentlane_runs_active',
      help: 'Runs this process created or claimed that are queued or running now, by engine and status',
      labelNames: ['engine', 'status'] as const,
      async collect() {
        await sampled.activeRuns();
      },
      registers,
    }),
    eventsIngested: new Counter({
      name: 'agentlane_events_ingested_total',
      help: 'Canonical event rows committed (a new revision counts, an identical re-emission does not)',
      registers,
    }),
    framesIngested: new Counter({
      name: 'agentlane_frames_ingested_total',
      help: 'Native engine frames appended to source lanes',
      registers,
    }),
    commitSeconds: new Histogram({
      name: 'agentlane_store_commit_seconds',
      help: 'Time from an append to its durable commit, group-commit wait included, by what was appended (events or frames)',
      labelNames: ['op'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    frameToSubscriberSeconds: new Histogram({
      name: 'agentlane_frame_to_subscriber_seconds',
      help: 'Time from receiving the native frame an event came from to handing the event to a live subscriber',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    openStreams: new Gauge({
      name: 'agentlane_open_streams',
      help: 'Open SSE thread streams',
      collect() {
        this.set(sampled.openStreams());
      },
      registers,
    }),
    slowConsumerDrops: new Counter({
      name: 'agentlane_slow_consumer_drops_total',
      help: 'SSE streams ended because the client stopped reading (it resumes with Last-Event-ID)',
      registers,
    }),
    outboxDepth: new Gauge({
      name: 'agentlane_outbox_depth',
      help: 'Settled runs waiting for canonicalization, as this process has seen them',
      async collect() {
        this.set(await sampled.outboxDepth());
      },
      registers,
    }),
    outboxLagSeconds: new Gauge({
      name: 'agentlane_outbox_lag_seconds',
      help: 'Age of the oldest settled run still waiting for canonicalization (0 when none)',
      async collect() {
        this.set(await sampled.outboxLagSeconds());
      },
      registers,
    }),
    canonicalizationSeconds: new Histogram({
      name: 'agentlane_canonicalization_lag_seconds',
      help: 'Time from a run settling (entering the outbox) to its completion record',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    ...leaseMetrics(registers),
    auditRows: new Counter({
      name: 'agentlane_audit_rows_written_total',
      help: 'Audit ledger rows inserted (an idempotent re-write of an existing row does not count)',
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

function leaseMetrics(registers: Registry[]) {
  return {
    leasesHeld: new Gauge({
      name: 'agentlane_run_leases_held',
      help: 'Run leases this process holds now',
      registers,
    }),
    leasesReclaimed: new Counter({
      name: 'agentlane_run_leases_reclaimed_total',
      help: 'Run leases this process took over from an owner whose lease expired',
      registers,
    }),
  };
}
