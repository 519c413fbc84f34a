import type { JsonValue } from '@agentlane/contract';
import type { EngineDriver, EngineSession, HarnessFrame, SecretRedactor } from '@agentlane/engine-kit';
import {
  type ArtifactStore,
  type EventStore,
  type InteractionAnswerRecord,
  type InteractionStore,
  isDatabaseUnavailable,
  type RunOutcome,
  type RunRecord,
  type RunStore,
  type SessionStore,
  type SourceLaneStore,
  type ThreadRecord,
  type ThreadStore,
} from '@agentlane/store';
import type { Canonicalizer } from './canonicalizer.js';
import type { FrameRouter } from './engine-sessions.js';
import type { PublishHub } from './hub.js';
import type { RunPipeline } from './run-pipeline.js';
import type { AuditSink } from './types.js';

// The run executor's options and the state it keeps per run and per thread.

export type Log = (level: 'info' | 'warn' | 'error', message: string, detail?: unknown) => void;

/** The roles the executor uses: a run's thread and session, its lane and rows, its answers, artifacts. */
export type ExecutorStore = ThreadStore &
  SessionStore &
  RunStore &
  SourceLaneStore &
  EventStore &
  InteractionStore &
  ArtifactStore;

export interface RunExecutorOptions {
  store: ExecutorStore;
  /** Redacts the secrets the server knows from every native frame and the run's error. */
  redactor?: SecretRedactor;
  hub: PublishHub;
  canonicalizer: Canonicalizer;
  ownerId: string;
  driverFor: (engine: string) => EngineDriver | undefined;
  artifactThresholdBytes?: number;
  pollIntervalMs: number;
  maxConcurrentRuns: number;
  /** How long a claimed run's lease lasts; the owner renews it every `leaseRenewMs`. */
  leaseMs: number;
  /** How often leases are renewed and expired runs of dead processes reclaimed. */
  leaseRenewMs: number;
  workDirFor: (thread: ThreadRecord) => string;
  /** An approval or question unanswered this long is cancelled by `system` (0: never). */
  approvalTimeoutMs: number;
  /**
   * How long a turn may go on after its run was stopped (run.cancel, a lost lease, a hand-back) before the
   * executor stops waiting for it: the thread's engine session is closed (its process ended) and the run
   * ends as cancelled.
   */
  cancelGraceMs: number;
  /** An engine session no run used for this long is closed (0: never). */
  engineIdleMs: number;
  /** A turn whose engine emits nothing this long fails (0: never). */
  turnIdleMs: number;
  audit?: AuditSink;
  log?: Log;
}

export interface Waiter {
  kind: 'approval' | 'question';
  targetId: string;
  resolve: (answer: InteractionAnswerRecord | null) => void;
  /** Fires when nobody answered within approvalTimeoutMs. */
  timer?: NodeJS.Timeout;
}

export interface ActiveRun {
  run: RunRecord;
  abort: AbortController;
  /** Created once the thread and its driver are known; a cancel before that is caught by `cancelled`. */
  pipeline?: RunPipeline;
  /** turn.cancel_requested is in the source lane already. */
  cancelRecorded?: boolean;
  waiters: Set<Waiter>;
  done: Promise<void>;
  /** Another process took the run (this one stalled past its lease): stop without settling it. */
  lost?: boolean;
  /** Handed back at shutdown: stop, flush what the engine emitted, leave settling to whoever reclaims it. */
  released?: boolean;
  /** finalizeRun is under way: the run leaves the held set by our own doing. */
  settling?: boolean;
}

export interface OpenSession {
  threadId: string;
  session: EngineSession;
  driver: EngineDriver;
  generation: number;
  /** Where the session's open-time emit delivers: the run using it, else a bounded between-turns buffer. */
  router: FrameRouter;
  /** Runs using the session now. */
  users: number;
  /** When the last run released it (epoch ms): a session idle for engineIdleMs is closed. */
  idleSince: number;
  /** Close it as soon as no run uses it (closeThreadEngine while a run was on it). */
  closeWhenIdle?: boolean;
}

export function harness(frame: HarnessFrame): JsonValue {
  return frame as unknown as JsonValue;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * `call` again while the database is unavailable (a disk full, an outage), every second for up to 10 min:
 * a run whose end cannot be written yet stays this process's (its lease renewed) instead of being dropped
 * and later settled as if its process were gone.
 */
export async function whileUnavailable<T>(call: () => Promise<T>, waiting: () => void): Promise<T> {
  const deadline = Date.now() + 10 * 60_000;
  for (let warned = false; ; ) {
    try {
      return await call();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || Date.now() > deadline) throw err;
      if (!warned) waiting();
      warned = true;
      await sleep(1000);
    }
  }
}

/** Writes a run's end (waiting while the database is unavailable), publishes its status, has it canonicalized. */
export async function finalizeAndAnnounce(
  o: RunExecutorOptions,
  run: RunRecord,
  status: 'completed' | 'failed',
  error: string | null,
  outcome: RunOutcome,
): Promise<void> {
  const settled = await whileUnavailable(
    () => o.store.finalizeRun(run.runId, status, error, outcome),
    () => o.log?.('warn', `run ${run.runId} waits for the database to settle it`),
  );
  o.hub.publishSignal(run.threadId, {
    type: 'run.status',
    threadId: run.threadId,
    runId: run.runId,
    status: settled.status,
    statusVersion: settled.statusVersion,
  });
  o.canonicalizer.kick();
}

/** The frames of a run that cannot start (no thread, no driver): without a translator they tell what happened. */
export async function recordSetupFailure(store: ExecutorStore, runId: string, error: string): Promise<void> {
  await store.appendFrames(runId, [
    {
      receivedAt: new Date().toISOString(),
      frame: harness({ harness: 'engine.error', message: error, fatal: true }),
    },
    {
      receivedAt: new Date().toISOString(),
      frame: harness({ harness: 'turn.ended', outcome: 'failed', error }),
    },
  ]);
}
