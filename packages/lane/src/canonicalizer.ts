import type { AuditableCall } from '@agentlane/contract';
import type { EngineDriver, SecretRedactor } from '@agentlane/engine-kit';
import type {
  ArtifactStore,
  CompletionRecord,
  EventStore,
  OutboxEntry,
  OutboxStore,
  RunStore,
  SourceLaneStore,
  ThreadStore,
} from '@agentlane/store';
import type { PublishHub } from './hub.js';
import { Materializer } from './offload.js';
import { type BuiltEvent, errorMessage, RunTranslation } from './run-translation.js';
import type { AuditSink } from './types.js';

export interface CanonicalizerOptions {
  store: OutboxStore & RunStore & ThreadStore & SourceLaneStore & EventStore & ArtifactStore;
  hub: PublishHub;
  workerId: string;
  /** The driver (and so the translator) of a thread's engine; undefined when none is configured. */
  driverFor: (engine: string) => EngineDriver | undefined;
  artifactThresholdBytes?: number;
  /** Where the audit rows of the final translation go (the same rows the live pass wrote: a no-op there). */
  audit?: AuditSink;
  /** The secrets of the live pass (RunExecutorOptions.redactor). */
  redactor?: SecretRedactor;
  /** Outbox entries leased per round. */
  batch?: number;
  /** How long a lease lasts before another worker may take the entry (a crashed worker's entries). */
  leaseMs?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string, detail?: unknown) => void;
  /** Test seam: runs after the final translation is written and before the watermark is re-read. */
  beforeWatermarkCheck?: (runId: string) => Promise<void> | void;
}

export type CanonicalizeOutcome =
  | { runId: string; status: 'completed'; record: CompletionRecord; revised: number }
  | { runId: string; status: 'retry'; reason: string };

/**
 * The outbox worker of the completion discipline. For each finalized run: seal the source lane (late frames
 * are refused from now on), re-translate the sealed source from scratch, write only what differs from the
 * latest stored revisions (per eventId, the re-translation's last emission: at most one new revision),
 * re-read the watermark (max native seq + content signature) and write the completion record only if it
 * held. If it did not (a frame was rewritten in place meanwhile), the entry is released and retried later.
 * After the record exists, `run.canonicalized` is published on the thread.
 */
export class Canonicalizer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(private readonly o: CanonicalizerOptions) {}

  start(intervalMs: number): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), intervalMs);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.running) await this.running;
  }

  /** Processes the outbox soon (e.g. right after this process finalized a run). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.processOnce();
        } while (this.again && !this.stopped);
      } catch (err) {
        this.o.log?.('warn', 'canonicalization round failed', { error: errorMessage(err) });
      } finally {
        this.running = null;
      }
    })();
  }

  /** Leases and processes one round of outbox entries. */
  async processOnce(): Promise<CanonicalizeOutcome[]> {
    const entries = await this.o.store.leaseOutbox(
      this.o.workerId,
      this.o.batch ?? 8,
      this.o.leaseMs ?? 30_000,
    );
    const outcomes: CanonicalizeOutcome[] = [];
    for (const entry of entries) outcomes.push(await this.canonicalizeEntry(entry));
    return outcomes;
  }

  async canonicalizeEntry(entry: OutboxEntry): Promise<CanonicalizeOutcome> {
    try {
      return await this.canonicalize(entry);
    } catch (err) {
      const reason = errorMessage(err);
      await this.o.store.releaseOutbox(entry.runId, reason).catch(() => undefined);
      this.o.log?.('warn', `canonicalization of run ${entry.runId} failed; will retry`, { error: reason });
      return { runId: entry.runId, status: 'retry', reason };
    }
  }

  private async canonicalize(entry: OutboxEntry): Promise<CanonicalizeOutcome> {
    const { store } = this.o;
    const run = await store.getRun(entry.runId);
    if (!run) throw new Error(`run ${entry.runId} not found`);
    const thread = await store.getThread(run.threadId);
    if (!thread) throw new Error(`thread ${run.threadId} not found`);

    // 1. Seal first: from now on a late frame is refused (and recorded), never slipped under the translator.
    const sealed = await store.sealSource(run.runId);

    // 2. Re-translate the sealed source from scratch.
    const driver = this.o.driverFor(thread.engine);
    let revised = 0;
    if (driver) {
      // The live pass's redactor: the same frames must give the same events (RunTranslation).
      const translation = new RunTranslation(
        driver.translator,
        { threadId: run.threadId, runId: run.runId, turnId: run.runId, provider: driver.provider },
        this.o.redactor ? { redactor: this.o.redactor } : {},
      );
      const materializer = new Materializer(store, this.o.artifactThresholdBytes);
      for (const row of await store.latestEvents({ threadId: run.threadId, runId: run.runId })) {
        materializer.remember(row.event, row.namespace);
      }
      // Reads are synchronous on SQLite: a turn for the event loop between the run's two big ones.
      await yieldToLoop();
      const events = [];
      const artifacts = [];
      const audit = [];
      const frames = await store.readFrames(run.runId);
      for (const [i, frame] of frames.entries()) {
        // A long run's re-translation is megabytes of work: the event loop gets a turn every few frames.
        if (i % 32 === 0) await yieldToLoop();
        const step = translation.push(frame);
        events.push(...step.events);
        artifacts.push(...step.artifacts);
        if (step.audit) audit.push(...step.audit);
      }
      const end = translation.finish(run.endedAt ?? new Date().toISOString());
      events.push(...end.events);
      artifacts.push(...end.artifacts);
      if (end.audit) audit.push(...end.audit);
      await this.recordAudit(run.runId, audit);
      // Only what differs from the latest stored revision is written: the final pass makes no needless revisions.
      // Per eventId only the last emission of the re-translation is compared (see finalEmissions): the final
      // pass appends at most one revision per eventId, none where the live pass already stored the end state.
      const writes = await materializer.toWrites({ events: finalEmissions(events), artifacts });
      if (writes.length > 0) {
        const result = await store.appendEvents(run.threadId, writes, true);
        revised = result.inserted.length;
        this.o.hub.publishRows(run.threadId, result.inserted);
      }
    } else {
      this.o.log?.(
        'warn',
        `no engine "${thread.engine}" configured: run ${run.runId} completes without re-translation`,
      );
    }

    await this.o.beforeWatermarkCheck?.(run.runId);

    // 3. Completion only if the watermark held (catches an in-place rewrite a row count would miss).
    const record = await store.completeCanonicalization(run.runId, sealed);
    if (!record) {
      const reason = 'the source watermark changed during canonicalization';
      await store.releaseOutbox(run.runId, reason);
      this.o.log?.('warn', `run ${run.runId}: ${reason}; will retry`);
      return { runId: run.runId, status: 'retry', reason };
    }

    // 4. The completion signal.
    this.o.hub.publishSignal(run.threadId, {
      type: 'run.canonicalized',
      threadId: run.threadId,
      runId: run.runId,
      status: run.status,
      lastDeliverySeq: record.lastDeliverySeq,
      completedAt: record.completedAt,
    });
    return { runId: run.runId, status: 'completed', record, revised };
  }

  /**
   * The final pass writes every audit row of the sealed source. Rows are keyed (session, turn, stage, seq) and
   * rebuilt byte-identical from the same frames, so rows the live pass wrote are no-ops and only rows it
   * missed (a crash, a failed write, calls only the end of the source closes) are inserted. A ledger failure
   * is logged, not fatal: the ledger must not hold a thread's completion hostage.
   */
  private async recordAudit(runId: string, rows: AuditableCall[]): Promise<void> {
    if (rows.length === 0 || !this.o.audit) return;
    try {
      await this.o.audit.record(rows);
    } catch (err) {
      this.o.log?.('warn', `audit rows of run ${runId} were not recorded by the final pass`, {
        error: errorMessage(err),
      });
    }
  }
}

/**
 * The re-translated events with each eventId once: the content of its LAST emission, in the slot of its
 * FIRST.
 *
 * The final pass writes the end state of the run, not its history again. Intermediate emissions of an
 * eventId (a key revised N times) are working state the live pass already streamed; compared one by one with
 * the latest stored revision (the last of them) each looked new, and the pass re-appended the whole history:
 * readers saw the text go back to its first version and come forward again. Comparing only the last emission
 * with the latest stored revision writes nothing when the live pass stored the end state, and exactly one
 * revision when it did not (a frame it missed, a failed live write, a source rewritten before sealing).
 *
 * Not "the i-th emission against the i-th stored revision": the stored history is no function of the
 * emissions (the live pass drops identical re-emissions, a failed or refused live write leaves a hole, a
 * retried final pass follows one whose writes came from another source), and wherever the two differ,
 * appending the missing intermediate versions after a newer one is the very regression described above.
 *
 * The first emission's slot: readers place an eventId at the first deliverySeq it had (the client's and the
 * web timeline), and pieces in the append form follow their tool's `tool.started`. When the live pass stored
 * nothing of the run (a crash), the rows come in the order the live pass would first have written them
 * (deliverySeq order = seq order); an eventId already stored keeps its place whatever slot its revision has.
 *
 * Everything else is unchanged: one appendEvents (persisted, then published; the store allocates deliverySeq
 * in order and revision + 1 per eventId, rows are appended, never updated), then the watermark check and the
 * completion record. Artifacts of every emission are still stored: rows the live pass wrote may name them.
 */
function finalEmissions(events: BuiltEvent[]): BuiltEvent[] {
  const slot = new Map<string, number>();
  const out: BuiltEvent[] = [];
  for (const built of events) {
    const at = slot.get(built.event.eventId);
    if (at === undefined) {
      slot.set(built.event.eventId, out.length);
      out.push(built);
    } else out[at] = built;
  }
  return out;
}

/** Lets the event loop run what is due (I/O, timers) before going on. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
