import type { AuditableCall, StreamEvent } from '@agentlane/contract';
import type { ApprovalAnswer, EngineDriver, QuestionAnswer, SecretRedactor } from '@agentlane/engine-kit';
import type {
  CommandRecord,
  InteractionAnswerRecord,
  RunRecord,
  Store,
  ThreadRecord,
} from '@agentlane/store';

/** Runs one process executes at once unless configured (engines are processes: a few, not hundreds). */
export const DEFAULT_MAX_CONCURRENT_RUNS = 16;

/**
 * How long an approval or a question waits for its answer unless configured: a run waiting holds one of the
 * process's run slots, so a request nobody answers must not hold it for ever; 15 minutes leaves a person time
 * to come back to a card.
 */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 15 * 60_000;

/**
 * How long a turn stopped by run.cancel (or a lost lease, or a hand-back at shutdown) may take to end before
 * the lane stops waiting for it unless configured: the engine session is closed (its process ended) and the
 * run ends as cancelled. The same 5 s the OpenCode adapter gives an aborted session to go idle.
 */
export const DEFAULT_CANCEL_GRACE_MS = 5_000;

/** How long an engine session no run uses stays open unless configured (its process holds memory). */
export const DEFAULT_ENGINE_IDLE_MS = 10 * 60_000;
/** A turn whose engine emits nothing for this long fails: above the built-in engine's longest command (30 min). */
export const DEFAULT_TURN_IDLE_MS = 60 * 60_000;

/** How `createLane` is configured by the server (or the CLI, or a test). */
export interface LaneOptions {
  store: Store;
  /** Secrets the server knows (engine keys, tokens): redacted from every native frame before it is stored. */
  redactor?: SecretRedactor;
  /** The configured engines, keyed by `EngineDriver.name`; a thread's `engine` picks one. */
  drivers: ReadonlyMap<string, EngineDriver> | readonly EngineDriver[];
  /** Identifies this process as the owner of the runs it executes (crash recovery uses it). */
  ownerId: string;
  /** Payloads whose JSON is larger than this many bytes go to the artifact store. Default 64 KiB. */
  artifactThresholdBytes?: number;
  /** How often the executor and the interaction waiters poll the store when nothing woke them. Default 100 ms. */
  pollIntervalMs?: number;
  /** Runs this process executes at once. Default DEFAULT_MAX_CONCURRENT_RUNS (16: twice the per-token run cap, so runs one token parks on approvals never take every slot). */
  maxConcurrentRuns?: number;
  /**
   * How long the lease on a run this process executes lasts (default 10 s). Once a lease is past, any live
   * process sharing the store settles the run as failed (its process is taken as gone).
   */
  runLeaseMs?: number;
  /** How often leases are renewed and expired runs reclaimed (default 2 s; at most half of runLeaseMs). */
  runLeaseRenewMs?: number;
  /**
   * An approval or a question nobody answers within this many ms is resolved as cancelled by `system` (the
   * same as a request whose process went away); the engine goes on as after any cancelled request. Default
   * DEFAULT_APPROVAL_TIMEOUT_MS (15 min); 0: never.
   */
  approvalTimeoutMs?: number;
  /**
   * How long a stopped turn (run.cancel, a lost lease, a hand-back) is waited for before its engine session
   * is closed (the engine process ended, a non-fatal `engine.error` says why) and the run ends as cancelled
   * (a cancel settles `completed` with outcome `cancelled`). Default DEFAULT_CANCEL_GRACE_MS (5 s).
   */
  cancelGraceMs?: number;
  /**
   * An engine session no run has used for this many ms is closed (its process ended); the thread's next run
   * reopens it from the persisted binding. Default DEFAULT_ENGINE_IDLE_MS (10 min); 0: never.
   */
  engineIdleMs?: number;
  /**
   * A turn whose engine emits nothing for this many ms, while nobody is being asked anything, fails with a
   * fatal `engine.error` and its engine session is closed: an engine that never ends its turn would hold its
   * run (and a client's run slot) for good. Default DEFAULT_TURN_IDLE_MS (60 min); 0: never.
   */
  turnIdleMs?: number;
  /** Where an engine session of a thread works; default: the thread's workDir, else process.cwd(). */
  workDirFor?: (thread: ThreadRecord) => string;
  /** Runs the executor (claims queued runs). Default true; false makes a read/write-only lane (e.g. a test). */
  execute?: boolean;
  /**
   * Where audit rows that translators surface (TranslationStep.audit) are recorded, e.g. an AuditLedger.
   * Writes are idempotent on the row key, so the live pass and a re-translation may both write them.
   */
  audit?: AuditSink;
  /** Diagnostics; never receives secrets. Default: silent. */
  log?: (level: 'info' | 'warn' | 'error', message: string, detail?: unknown) => void;
}

/** The part of @agentlane/ledger the lane needs (record only), so the lane does not depend on it. */
export interface AuditSink {
  record(rows: readonly AuditableCall[]): Promise<unknown>;
}

export interface CreateRunInput {
  threadId: string;
  prompt: string;
  parentRunId?: string | null;
  /** model, mode, ...: handed to the engine turn. */
  options?: Record<string, string | number | boolean | null>;
  idempotencyKey?: string | null;
  /** A client's view of the session generation; a stale one is refused (StoreError stale_generation). */
  expectedGeneration?: number;
}

/**
 * One live subscription to a thread. Events are delivered in order: `stream.opened` first, then every
 * committed row with deliverySeq > after (replay, then live, no gap, no duplicate), interleaved with the
 * `run.status` / `run.canonicalized` signals published while it is open.
 */
export interface LaneSubscription {
  readonly threadId: string;
  /** The highest deliverySeq committed when the subscription opened (what `stream.opened` carried). */
  readonly headDeliverySeq: number;
  /** The deliverySeq of the last row handed to the listener. */
  readonly cursor: number;
  close(): void;
}

export type LaneListener = (event: StreamEvent) => void;

/**
 * How a consumer that writes to a socket paces the catch-up of its subscription (optional; live rows are
 * never held back for it). Without one, a replay hands every stored row as fast as the store reads them.
 */
export interface SubscriptionFlow {
  /** False while the consumer holds as much unsent as it wants: the replay waits for `writable()`. */
  ready(): boolean;
  /** Resolves once the consumer can take more, or is gone. */
  writable(): Promise<void>;
  /** Rows per store read of the replay: what the consumer's frames weigh decides (bounded memory per page). */
  pageSize(): number;
}

/** The facade the HTTP server calls. Every write is committed to the store before it resolves. */
export interface Lane {
  /** Durable run.create; a retry with the same idempotency key returns the first run (created: false). */
  createRun(input: CreateRunInput): Promise<{ run: RunRecord; created: boolean }>;
  /** Durable run.cancel; the process running the run aborts its turn (this one at once, others on poll). */
  cancelRun(runId: string, idempotencyKey?: string | null): Promise<CommandRecord>;
  /**
   * Records the answer (StoreError not_found for an unknown run; conflict without a detail when no live
   * process executes the run, checked before anything is recorded); the waiting engine turn receives it.
   * `unlessResolved`: refused (conflict, detail `already_resolved`) once the request's resolution is stored.
   */
  answerApproval(input: {
    runId: string;
    approvalId: string;
    answer: ApprovalAnswer;
    unlessResolved?: boolean;
  }): Promise<InteractionAnswerRecord>;
  answerQuestion(input: {
    runId: string;
    questionId: string;
    answer: QuestionAnswer;
    unlessResolved?: boolean;
  }): Promise<InteractionAnswerRecord>;
  /**
   * Subscribes to a thread from `after` (0 = from the start; an SSE Last-Event-ID). The listener is called
   * synchronously per event and must not throw; resolves once the subscription is registered (replay runs
   * in the background and is followed by live rows).
   */
  subscribe(
    threadId: string,
    after: number,
    listener: LaneListener,
    flow?: SubscriptionFlow,
  ): Promise<LaneSubscription>;
  /**
   * Closes the thread's engine session in this process (its engine process ends), e.g. when the session is
   * deleted: at once when no run uses it, else as soon as the run using it ends. Resolves false when this
   * process has no session of that thread open (or does not execute runs). The thread's next run, if any,
   * reopens it from the persisted binding.
   */
  closeThreadEngine(threadId: string): Promise<boolean>;
  /** The canonicalization worker and the executor (which first settles the runs of dead processes). */
  start(): Promise<void>;
  /**
   * Stops taking runs, waits up to `graceMs` (default 0) for running turns, hands the rest back (their leases
   * expire: another process, or this one after a restart, settles them), stops the workers, closes
   * subscriptions. A run is never settled as cancelled by a stop.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}
