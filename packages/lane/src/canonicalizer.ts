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
import { type FinalPassPaging, writeFinalPass } from './final-pass.js';
import type { PublishHub } from './hub.js';
import { Materializer } from './offload.js';
import { errorMessage, RunTranslation } from './run-translation.js';
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
  /** How much of a run the final pass holds at once (DEFAULT_FINAL_PASS_PAGING; tests make it small). */
  finalPassPaging?: Partial<FinalPassPaging>;
  /** Test seam: runs after the final translation is written and before the watermark is re-read. */
  beforeWatermarkCheck?: (runId: string) => Promise<void> | void;
}

export type CanonicalizeOutcome =
  | { runId: string; status: 'completed'; record: CompletionRecord; revised: number }
  | { runId: string; status: 'retry'; reason: string };

/**
 * The outbox worker of the completion discipline. For each finalized run: seal the source lane (late frames
 * are refused from now on), re-translate the sealed source from scratch, write only what differs from the
 * latest stored revisions (per eventId, the re-translation's last emission: at most one new revision; a page
 * of the run at a time, see final-pass.ts),
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
      const translation = () =>
        new RunTranslation(
          driver.translator,
          { threadId: run.threadId, runId: run.runId, turnId: run.runId, provider: driver.provider },
          {
            ...(this.o.redactor ? { redactor: this.o.redactor } : {}),
            // The Materializer's threshold: the artifact seqs it uses are reserved by the translation.
            ...(this.o.artifactThresholdBytes
              ? { artifactThresholdBytes: this.o.artifactThresholdBytes }
              : {}),
          },
        );
      // Per eventId only the re-translation's last emission is compared with the latest stored revision and
      // written if it differs: at most one revision per eventId, none where the live pass stored the end state.
      const result = await writeFinalPass({
        store,
        hub: this.o.hub,
        threadId: run.threadId,
        runId: run.runId,
        translation,
        endTs: run.endedAt ?? new Date().toISOString(),
        materializer: new Materializer(store, this.o.artifactThresholdBytes),
        audit: (rows) => this.recordAudit(run.runId, rows),
        ...(this.o.finalPassPaging ? { paging: this.o.finalPassPaging } : {}),
      });
      revised = result.revised;
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
   * is logged, not fatal: the ledger must not hold a thread's completion hostage. False after a failure: the
   * run's later rows are not tried.
   */
  private async recordAudit(runId: string, rows: AuditableCall[]): Promise<boolean> {
    if (rows.length === 0 || !this.o.audit) return true;
    try {
      await this.o.audit.record(rows);
      return true;
    } catch (err) {
      // Once: the rows come a page at a time, and a ledger that is down would fail (and log) every page.
      this.o.log?.('warn', `audit rows of run ${runId} were not recorded by the final pass`, {
        error: errorMessage(err),
      });
      return false;
    }
  }
}
