import type { JsonObject, RunOutcome, RunView } from '@agentlane/contract';

/** The contract's outcome of a settled run, named through the store for its callers (the lane). */
export type { RunOutcome };

/**
 * A run as the store keeps it: the contract's `/runs` resource (its one definition, so the two cannot drift)
 * plus what only the owning process and the lane use. `options` are those of the run.create command
 * (model, mode, ...); `canonicalizedAt` is set once the completion record exists.
 */
export interface RunRecord extends RunView {
  /** The process that owns the running engine turn (for crash recovery). */
  ownerId: string | null;
  /**
   * Until when the owner holds the run (ISO time): it renews this well before; once it passed, the owner is
   * taken as gone and any live process settles the run. Null while queued (and for runs of old builds).
   */
  leaseUntil: string | null;
  /** Counts the run's status changes (1 = queued): the latest run.status of a run has the highest. */
  statusVersion: number;
  /** When run.cancel was first requested (null: never); the owner of the run acts on it. */
  cancelRequestedAt: string | null;
}

/** A run an owner still holds after renewing its leases. */
export interface HeldRun {
  runId: string;
  /** run.cancel was requested: the owner should abort the turn. */
  cancelRequested: boolean;
}

/** How long a run lease lasts and how often its owner renews it (defaults recover a dead owner's runs in ~12 s). */
export const DEFAULT_RUN_LEASE_MS = 10_000;
export const DEFAULT_RUN_LEASE_RENEW_MS = 2_000;
/** The lease of a run handed back at shutdown: expired since ever, so the next reclaimer takes it at once. */
export const RELEASED_LEASE = '1970-01-01T00:00:00.000Z';

export type CommandKind = 'run.create' | 'run.cancel';

export interface CommandRecord {
  commandId: string;
  kind: CommandKind;
  threadId: string;
  runId: string;
  idempotencyKey: string | null;
  payload: JsonObject;
  createdAt: string;
}

/** What run.create asks for. */
export interface CreateRunInput {
  threadId: string;
  prompt: string;
  parentRunId?: string | null;
  options?: JsonObject;
  idempotencyKey?: string | null;
  expectedGeneration?: number;
}

/** Durable commands and runs: creation, cancel, claims and leases, settling. */
export interface RunStore {
  /**
   * run.create: creates the run (queued) and its command in one transaction. A retry with the same
   * idempotency key returns the first run; the same key with a different body is an idempotency_conflict.
   * A thread that does not exist (or is deleted meanwhile, see deleteThread) is `not_found`.
   */
  createRun(input: CreateRunInput): Promise<{ run: RunRecord; created: boolean }>;
  /** run.cancel: records the command and flags the run (cancelRequestedAt); the process owning the run acts on it. */
  requestCancel(runId: string, idempotencyKey?: string | null): Promise<CommandRecord>;
  getRun(runId: string): Promise<RunRecord | null>;
  listRuns(threadId: string): Promise<RunRecord[]>;
  /**
   * Claims the oldest queued run of a thread with no running run (a thread's runs take turns) for an owner
   * (SKIP LOCKED on PostgreSQL) with a lease of `leaseMs`
   * (default DEFAULT_RUN_LEASE_MS); null when none.
   */
  claimQueuedRun(ownerId: string, leaseMs?: number): Promise<RunRecord | null>;
  /** Claims one specific queued run (queued → running) for an owner; null when it is not queued any more. */
  claimRun(runId: string, ownerId: string, leaseMs?: number): Promise<RunRecord | null>;
  /** Commands by createdAt (a process clock: an audit trail, not a cursor; cancels are a flag on the run). */
  listCommandsSince(afterCreatedAt: string | null): Promise<CommandRecord[]>;
  /** Every run `running` now, whoever owns it. */
  listRunningRuns(): Promise<RunRecord[]>;
  /**
   * Extends the lease of every run the owner holds (running, owned by it) to now + leaseMs in one statement,
   * and returns those runs: a run of this owner missing from the answer was taken by another process.
   */
  renewRunLeases(ownerId: string, leaseMs: number): Promise<HeldRun[]>;
  /** The runs an owner holds, read only (cheap enough to poll for cancel flags). */
  listHeldRuns(ownerId: string): Promise<HeldRun[]>;
  /** Running runs whose lease has expired (or that never had one), oldest first. */
  listExpiredRuns(limit?: number): Promise<RunRecord[]>;
  /**
   * Takes a running run whose lease has expired for `ownerId` (a new lease of leaseMs): exactly one of several
   * racing callers gets it. Resolves with the run as it was before (its ownerId is the lost owner), or null.
   */
  takeExpiredRun(runId: string, ownerId: string, leaseMs: number): Promise<RunRecord | null>;
  /**
   * Hands runs back (shutdown): their lease expires now, so any live process (or this one after a restart)
   * settles them at once. Only runs still held by the owner; all of them when runIds is omitted.
   */
  releaseRunLeases(ownerId: string, runIds?: readonly string[]): Promise<number>;
  /**
   * Settles a run (completed or failed) and enqueues its canonicalization in the same transaction, so a
   * settled run always gets a canonical history.
   */
  /** `outcome` defaults to the status; a cancelled run is settled `completed` with outcome `cancelled`. */
  finalizeRun(
    runId: string,
    status: 'completed' | 'failed',
    error?: string | null,
    outcome?: RunOutcome,
  ): Promise<RunRecord>;
}
