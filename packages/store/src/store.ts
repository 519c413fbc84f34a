import type {
  ArtifactRef,
  CanonicalEvent,
  DeliveryRow,
  JsonObject,
  JsonValue,
  NegotiatedCapabilities,
  ProviderId,
  RunStatus,
} from '@agentlane/contract';

// Plain records of what the store holds. Field names are camelCase in TypeScript, snake_case in SQL.

export interface ThreadRecord {
  threadId: string;
  /** The engine this thread was created for (a configured engine name). */
  engine: string;
  title: string | null;
  workDir: string | null;
  createdAt: string;
  updatedAt: string;
  /** Thread-level metadata a client set (PUT /sessions/:id); free-form JSON. */
  metadata: JsonObject;
}

/**
 * How a settled run's turn ended. `status` keeps the contract's four lifecycle states; a run stopped by
 * run.cancel ended as asked, so it is `completed` with outcome `cancelled` (its turn.completed says
 * stopReason "cancelled"), never a failure with an error string.
 */
export type RunOutcome = 'completed' | 'failed' | 'cancelled';

export interface RunRecord {
  runId: string;
  threadId: string;
  parentRunId: string | null;
  status: RunStatus;
  prompt: string;
  /** Options of the run.create command: model, mode, ... */
  options: JsonObject;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  error: string | null;
  /** Set when the run settles (null while queued or running). */
  outcome: RunOutcome | null;
  /** The process that owns the running engine turn (for crash recovery). */
  ownerId: string | null;
  /** Set once the completion record exists. */
  canonicalizedAt: string | null;
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

/** The harness session bound to a thread: a row, not process memory. */
export interface HarnessSessionRecord {
  threadId: string;
  provider: ProviderId;
  engine: string;
  nativeSessionId: string | null;
  runtimeBinding: JsonObject;
  protocolVersion: string;
  capabilities: NegotiatedCapabilities;
  /** Increases whenever the runtime binding changes; a command with an older generation is refused. */
  generation: number;
  updatedAt: string;
}

export interface SourceFrameRecord {
  runId: string;
  nativeSeq: number;
  receivedAt: string;
  frame: JsonValue;
}

/** A native frame to append. `raw`: the frame as the engine's wire carried it, kept in the raw sidecar. */
export interface SourceFrameInput {
  receivedAt: string;
  frame: JsonValue;
  raw?: string | Uint8Array;
}

/**
 * Where a frame's raw bytes live: `inline` in the sidecar row (up to `inlineMaxBytes`), an `artifact`
 * (content-addressed, larger ones), or `omitted` once the run's raw budget is spent (size + sha256 only).
 */
export type RawFrameStorage = 'inline' | 'artifact' | 'omitted';

/** The raw sidecar of one native frame. */
export interface RawFrameRecord {
  runId: string;
  nativeSeq: number;
  /** Size of the raw bytes as received (also when omitted). */
  bytes: number;
  /** sha256 hex of the raw bytes as received. */
  sha256: string;
  storage: RawFrameStorage;
  /** The bytes when stored inline; null otherwise (an artifact is read with getArtifact(artifactId)). */
  content: Uint8Array | null;
  artifactId: string | null;
}

/** Bounds of the raw sidecar: per frame inline, per run in total (inline + artifact bytes kept). */
export interface RawSidecarLimits {
  inlineMaxBytes: number;
  maxBytesPerRun: number;
}

export const DEFAULT_RAW_SIDECAR_LIMITS: RawSidecarLimits = {
  inlineMaxBytes: 8 * 1024,
  maxBytesPerRun: 16 * 1024 * 1024,
};

/** The watermark of a run's source lane: proves nothing changed between translation and completion. */
export interface SourceWatermark {
  maxNativeSeq: number;
  /** Content signature over every frame (sha256 over nativeSeq + frame bytes, in order). */
  signature: string;
  sealed: boolean;
}

/** An answer to an approval or question, written first, then delivered to the engine. */
export interface InteractionAnswerRecord {
  answerId: string;
  threadId: string;
  runId: string;
  kind: 'approval' | 'question';
  /** approvalId or questionId. */
  targetId: string;
  answer: JsonObject;
  createdAt: string;
  deliveredAt: string | null;
}

export interface CompletionRecord {
  runId: string;
  threadId: string;
  lastDeliverySeq: number;
  watermark: SourceWatermark;
  completedAt: string;
}

export interface OutboxEntry {
  runId: string;
  threadId: string;
  enqueuedAt: string;
  attempts: number;
  lastError: string | null;
}

/** One event to persist: the lane has already built the envelope. */
export interface EventWrite {
  event: CanonicalEvent;
  namespace?: string[];
  /**
   * The caller knows this eventId was never stored (e.g. the first emission of a key in the live pass of a
   * fresh run): the store writes revision 1 without looking up the latest one. A wrong claim cannot store
   * a second revision 1: the (event_id, revision) unique index refuses it, and the whole call fails with
   * nothing of it stored.
   */
  firstWrite?: boolean;
}

/** What an append did for one event: inserted as a new revision, or skipped because identical. */
export interface AppendResult {
  inserted: DeliveryRow[];
  unchanged: number;
}

/** One keyed write of a sync client, stamped with the writer's version vector at write time. */
export interface SyncChangeRecord {
  sessionId: string;
  clientId: string;
  /** The writer's own vector entry after incrementing for this write. */
  version: number;
  key: string;
  value: JsonValue;
  /** The writer's whole vector at write time; two changes to one key whose vectors are concurrent conflict. */
  vector: Record<string, number>;
  /** Server order of arrival, for "changes the client has not seen". */
  serverSeq: number;
  receivedAt: string;
}

export interface ListThreadsQuery {
  /** Only these threads (a scoped token's), filtered before paging. */
  threadIds?: readonly string[];
  engine?: string;
  /** Substring match on the title. */
  search?: string;
  limit: number;
  /** Opaque cursor from a previous page. */
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** A stored artifact, opened for reading. */
export interface OpenArtifact {
  ref: ArtifactRef;
  /** The bytes from `start` to `end` inclusive (default: all), a piece at a time. */
  read(start?: number, end?: number): AsyncIterable<Uint8Array>;
}

export class StoreError extends Error {
  constructor(
    readonly code:
      | 'not_found'
      | 'conflict'
      | 'source_sealed'
      | 'stale_generation'
      | 'idempotency_conflict'
      | 'invalid'
      | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/**
 * The durable store. One interface, two implementations (SQLite, PostgreSQL) that pass one shared suite.
 * Every method is a committed transaction when it resolves: nothing is published before that.
 */
export interface Store {
  readonly backend: 'sqlite' | 'postgres';
  migrate(): Promise<void>;
  close(): Promise<void>;

  // threads
  createThread(thread: Omit<ThreadRecord, 'createdAt' | 'updatedAt'>): Promise<ThreadRecord>;
  getThread(threadId: string): Promise<ThreadRecord | null>;
  updateThread(
    threadId: string,
    patch: Partial<Pick<ThreadRecord, 'title' | 'metadata'>>,
  ): Promise<ThreadRecord>;
  deleteThread(threadId: string): Promise<void>;
  listThreads(query: ListThreadsQuery): Promise<Page<ThreadRecord>>;

  // sessions
  getSession(threadId: string): Promise<HarnessSessionRecord | null>;
  /** Writes the binding; bumps generation when nativeSessionId or runtimeBinding changed. */
  bindSession(record: Omit<HarnessSessionRecord, 'generation' | 'updatedAt'>): Promise<HarnessSessionRecord>;

  // durable commands and runs
  /**
   * run.create: creates the run (queued) and its command in one transaction. A retry with the same
   * idempotency key returns the first run; the same key with a different body is an idempotency_conflict.
   */
  createRun(input: {
    threadId: string;
    prompt: string;
    parentRunId?: string | null;
    options?: JsonObject;
    idempotencyKey?: string | null;
    expectedGeneration?: number;
  }): Promise<{ run: RunRecord; created: boolean }>;
  /** run.cancel: records the command and flags the run (cancelRequestedAt); the process owning the run acts on it. */
  requestCancel(runId: string, idempotencyKey?: string | null): Promise<CommandRecord>;
  getRun(runId: string): Promise<RunRecord | null>;
  listRuns(threadId: string): Promise<RunRecord[]>;
  /**
   * Claims the oldest queued run for an owner (SKIP LOCKED on PostgreSQL) with a lease of `leaseMs`
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

  // source lane
  /** Appends native frames in order; refused with source_sealed (and recorded) once the lane is sealed. */
  appendFrames(runId: string, frames: SourceFrameInput[]): Promise<SourceFrameRecord[]>;
  readFrames(runId: string, afterNativeSeq?: number): Promise<SourceFrameRecord[]>;
  /** The raw sidecar of frames appended with `raw`, nativeSeq > afterNativeSeq, in order. */
  readRawFrames(runId: string, afterNativeSeq?: number): Promise<RawFrameRecord[]>;
  sealSource(runId: string): Promise<SourceWatermark>;
  readWatermark(runId: string): Promise<SourceWatermark>;
  /** Late frames refused after sealing, kept for inspection. */
  listRefusedFrames(runId: string): Promise<{ receivedAt: string; frame: JsonValue; reason: string }[]>;

  // canonical events
  /**
   * Persists events: each gets the next deliverySeq of its thread and the next revision of its eventId;
   * an identical re-emission is a no-op. Resolves after commit with the inserted rows in deliverySeq order.
   */
  appendEvents(threadId: string, writes: EventWrite[], provisional: boolean): Promise<AppendResult>;
  /**
   * Rows with deliverySeq > afterDeliverySeq in deliverySeq order. `provisional` is derived at read time:
   * the stored flag, cleared for rows covered by the run's completion record (rows are never updated).
   */
  readEvents(threadId: string, afterDeliverySeq: number, limit: number): Promise<DeliveryRow[]>;
  /** The highest committed deliverySeq of the thread (0 when none); cheap enough to poll. */
  headDeliverySeq(threadId: string): Promise<number>;
  /**
   * Called after a commit that appended canonical events to a thread, with the thread's new head. Commits of
   * other stores and processes are heard too: LISTEN/NOTIFY on PostgreSQL; on SQLite other stores of this
   * process at once and other processes through a cheap `PRAGMA data_version` poll (~25 ms). Several commits
   * may fold into one call; a head is never announced twice. Returns the unsubscribe function.
   */
  onCommitted(listener: (threadId: string, headDeliverySeq: number) => void): () => void;
  /**
   * Sends a thread's live signal (run status, completion: small JSON, not a row) to the other stores of this
   * database, so subscribers served by another process hear it too: NOTIFY on PostgreSQL; on SQLite the other
   * stores of this process only. This store's own `onSignal` listeners do not hear it.
   */
  broadcastSignal(threadId: string, signal: JsonObject): Promise<void>;
  /** Hears the signals other stores broadcast. Returns the unsubscribe function. */
  onSignal(listener: (threadId: string, signal: JsonObject) => void): () => void;
  /**
   * Resolves once the signals and commits other stores broadcast from now on are heard (PostgreSQL: the
   * LISTEN connection is up; at once on SQLite). Never rejects; pending while the database is unreachable.
   */
  listening(): Promise<void>;
  /**
   * Called each time hearing other stores (re)starts, the first time included (PostgreSQL: LISTEN
   * established again after a restart or a dropped connection; never on SQLite). What was broadcast while it
   * was down is lost, so the caller re-reads what it cares about. Returns the unsubscribe function.
   */
  onListening(listener: () => void): () => void;
  /** The latest revision of every eventId of a run (or thread), in first-delivery order. */
  latestEvents(query: { threadId: string; runId?: string }): Promise<DeliveryRow[]>;

  // completion
  /** Outbox entries waiting for canonicalization; leases them to a worker (SKIP LOCKED on PostgreSQL). */
  leaseOutbox(workerId: string, limit: number, leaseMs: number): Promise<OutboxEntry[]>;
  /** Writes the completion record and removes the outbox entry, only if the watermark is unchanged. */
  completeCanonicalization(runId: string, expected: SourceWatermark): Promise<CompletionRecord | null>;
  releaseOutbox(runId: string, error: string): Promise<void>;
  getCompletion(runId: string): Promise<CompletionRecord | null>;
  /** Every completion record of a thread, oldest first (one query: a resumed stream repeats them all). */
  listCompletions(threadId: string): Promise<CompletionRecord[]>;

  // interactions
  recordAnswer(
    answer: Omit<InteractionAnswerRecord, 'answerId' | 'createdAt' | 'deliveredAt'>,
  ): Promise<InteractionAnswerRecord>;
  pendingAnswers(runId: string): Promise<InteractionAnswerRecord[]>;
  markAnswerDelivered(answerId: string): Promise<void>;

  // sync (version vectors)
  /** Stores changes not stored yet; a (clientId, version) already present is ignored, so a retry is harmless. */
  appendSyncChanges(
    sessionId: string,
    changes: Omit<SyncChangeRecord, 'serverSeq' | 'receivedAt' | 'sessionId'>[],
  ): Promise<SyncChangeRecord[]>;
  listSyncChanges(sessionId: string): Promise<SyncChangeRecord[]>;

  // artifacts
  putArtifact(content: Uint8Array, contentType: string): Promise<ArtifactRef>;
  /**
   * Stores content too large to hold in memory, read piece by piece (a file's stream), in chunks; `sha256` is
   * what the content must hash to (checked as it goes; a mismatch stores nothing: StoreError invalid).
   */
  putArtifactStream(
    content: AsyncIterable<Uint8Array>,
    contentType: string,
    sha256: string,
  ): Promise<ArtifactRef>;
  /** The whole content in memory (a chunked artifact is put together): for small ones; serve with openArtifact. */
  getArtifact(id: string): Promise<{ ref: ArtifactRef; content: Uint8Array } | null>;
  /** An artifact's ref and a reader of byte ranges that holds at most one chunk at a time. */
  openArtifact(id: string): Promise<OpenArtifact | null>;
  /** Whether an event or a raw frame of one of these threads names the artifact (what a scoped token may read). */
  artifactInThreads(id: string, threadIds: readonly string[]): Promise<boolean>;
}
