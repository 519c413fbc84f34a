import type { AuditableCall } from '@agentlane/contract';
import type { EventStore, RunStore, ThreadStore } from '@agentlane/store';

/** What a run's trace reads. */
type TraceStore = RunStore & ThreadStore & EventStore;

import type { Tracer } from '@opentelemetry/api';
import { traceRun } from './run-trace.js';

/** Turns whose audit rows are kept until their run is traced; past it the oldest are dropped. */
const MAX_BUFFERED_TURNS = 1000;

/**
 * Collects audit rows per turn as the lane records them and, once a run's canonical history is complete,
 * reads its events and emits its spans. Rows are keyed by their idempotency key, so the live pass and the
 * re-translation writing the same row give one span.
 */
export class RunTraces {
  readonly #rows = new Map<string, Map<string, AuditableCall>>();
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly tracer: Tracer,
    private readonly captureContent: boolean,
    private readonly log: (message: string) => void,
  ) {}

  rows(rows: readonly AuditableCall[]): void {
    for (const row of rows) {
      let turn = this.#rows.get(row.turn_id);
      if (!turn) {
        if (this.#rows.size >= MAX_BUFFERED_TURNS) {
          const oldest = this.#rows.keys().next().value;
          if (oldest !== undefined) this.#rows.delete(oldest);
        }
        turn = new Map();
        this.#rows.set(row.turn_id, turn);
      }
      turn.set(`${row.stage_id}|${row.seq_within_turn}`, row);
    }
  }

  /** Traces the run in the background; idle() waits for every trace started so far. */
  canonicalized(store: TraceStore, runId: string): void {
    const pending = this.#trace(store, runId).finally(() => this.#pending.delete(pending));
    this.#pending.add(pending);
  }

  async idle(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  /** Emits the run's spans; never throws (a failure is logged and the run goes untraced). */
  async #trace(store: TraceStore, runId: string): Promise<void> {
    try {
      const run = await store.getRun(runId);
      if (!run) return;
      const thread = await store.getThread(run.threadId);
      const events = await store.latestEvents({ threadId: run.threadId, runId });
      const turns = new Set(events.map((e) => e.event.turnId));
      const audit: AuditableCall[] = [];
      for (const turnId of turns) {
        audit.push(...(this.#rows.get(turnId)?.values() ?? []));
        this.#rows.delete(turnId);
      }
      audit.sort((a, b) => a.seq_within_turn - b.seq_within_turn);
      traceRun(this.tracer, {
        run,
        engine: thread?.engine ?? 'unknown',
        events,
        audit,
        captureContent: this.captureContent,
      });
    } catch (err) {
      this.log(`run ${runId}: no trace (${err instanceof Error ? err.message : String(err)})`);
    }
  }
}
