import { randomUUID } from 'node:crypto';
import type { ArtifactRef, DeliveryRow, JsonObject, JsonValue } from '@agentlane/contract';
import { monotonicFactory } from 'ulid';
import {
  type AppendResult,
  type CommandRecord,
  type CompletionRecord,
  DEFAULT_RAW_SIDECAR_LIMITS,
  DEFAULT_RUN_LEASE_MS,
  type EventWrite,
  type HarnessSessionRecord,
  type HeldRun,
  type InteractionAnswerRecord,
  type ListThreadsQuery,
  type OpenArtifact,
  type OutboxEntry,
  type Page,
  type RawFrameRecord,
  type RawSidecarLimits,
  RELEASED_LEASE,
  type RunOutcome,
  type RunRecord,
  type SourceFrameRecord,
  type SourceWatermark,
  type Store,
  StoreError,
  type SyncChangeRecord,
  type ThreadRecord,
} from '../store.js';
import { openArtifactRow, putChunkedArtifact } from './artifact-chunks.js';
import { appendEventsJob, latestEventRows, readEventRows, validateWrites } from './events.js';
import { readRawRows, validateRawLimits } from './raw-sidecar.js';
import {
  toAnswer,
  toCommand,
  toCompletion,
  toOutbox,
  toRun,
  toSession,
  toSyncChange,
  toThread,
} from './rows.js';
import { sha256HexOf, sortedKeysJson } from './sorted-keys-json.js';
import {
  appendFramesJob,
  computeWatermark,
  type FrameInput,
  readFrameRows,
  validateFrames,
} from './source-lane.js';
import type { Migration, SqlBackend, SqlConn, SqlParam, SqlRow } from './sql-conn.js';
import { WriteQueue } from './write-queue.js';

const ARTIFACT_ID = /^sha256-[0-9a-f]{64}$/;

export interface SqlStoreOptions {
  /** Bounds of the raw frame sidecar (defaults: DEFAULT_RAW_SIDECAR_LIMITS). */
  rawSidecar?: Partial<RawSidecarLimits>;
}

/**
 * The store logic, shared by both backends: every behaviour the conformance suite checks is written once,
 * and a backend only supplies connections, locking clauses and notifications.
 */
export class SqlStore implements Store {
  readonly backend: 'sqlite' | 'postgres';
  private readonly queue: WriteQueue;
  private readonly listeners = new Set<(threadId: string, head: number) => void>();
  private stopListening: (() => void) | null = null;
  private readonly origin = randomUUID();
  private readonly newId = monotonicFactory();
  private closed = false;

  private readonly rawLimits: RawSidecarLimits;

  constructor(
    private readonly db: SqlBackend,
    private readonly migrations: readonly Migration[],
    options: SqlStoreOptions = {},
  ) {
    this.backend = db.dialect;
    this.rawLimits = validateRawLimits({ ...DEFAULT_RAW_SIDECAR_LIMITS, ...options.rawSidecar });
    this.queue = new WriteQueue(db, (heads) => this.publish(heads), this.origin);
  }

  private now(): string {
    return new Date().toISOString();
  }

  private publish(heads: ReadonlyMap<string, number>): void {
    for (const [threadId, head] of heads) {
      for (const listener of this.listeners) {
        try {
          listener(threadId, head);
        } catch {
          // A listener's bug must not break the writer that committed.
        }
      }
    }
  }

  /** A transaction retried on deadlock/serialization failure, and once on a unique race (then re-read). */
  private async tx<T>(fn: (c: SqlConn) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction(fn);
      } catch (error) {
        const retry = this.db.isRetryable(error) || (attempt === 1 && this.db.isUniqueViolation(error));
        if (!retry || attempt >= 5) throw error;
      }
    }
  }

  private async one(c: SqlConn, sql: string, params: readonly SqlParam[]): Promise<SqlRow | undefined> {
    return (await c.all<SqlRow>(sql, params))[0];
  }

  async migrate(): Promise<void> {
    await this.db.migrate(this.migrations);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.idle();
    this.stopListening?.();
    await this.db.close();
  }

  // threads

  async createThread(thread: Omit<ThreadRecord, 'createdAt' | 'updatedAt'>): Promise<ThreadRecord> {
    if (typeof thread.threadId !== 'string' || thread.threadId === '')
      throw new StoreError('invalid', 'threadId is required');
    if (typeof thread.engine !== 'string' || thread.engine === '')
      throw new StoreError('invalid', 'engine is required');
    const now = this.now();
    const record: ThreadRecord = {
      ...thread,
      metadata: thread.metadata ?? {},
      createdAt: now,
      updatedAt: now,
    };
    return this.tx(async (c) => {
      if (await this.one(c, 'SELECT 1 AS x FROM threads WHERE thread_id = ?', [thread.threadId])) {
        throw new StoreError('conflict', `thread ${thread.threadId} already exists`);
      }
      await c.run(
        'INSERT INTO threads (thread_id, engine, title, work_dir, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [
          record.threadId,
          record.engine,
          record.title,
          record.workDir,
          JSON.stringify(record.metadata),
          now,
          now,
        ],
      );
      await c.run('INSERT INTO thread_heads (thread_id, head) VALUES (?, 0)', [record.threadId]);
      return record;
    });
  }

  async getThread(threadId: string): Promise<ThreadRecord | null> {
    const row = await this.db.read((c) =>
      this.one(c, 'SELECT * FROM threads WHERE thread_id = ?', [threadId]),
    );
    return row ? toThread(row) : null;
  }

  async updateThread(
    threadId: string,
    patch: Partial<Pick<ThreadRecord, 'title' | 'metadata'>>,
  ): Promise<ThreadRecord> {
    return this.tx(async (c) => {
      const row = await this.one(c, `SELECT * FROM threads WHERE thread_id = ?${this.db.forUpdate}`, [
        threadId,
      ]);
      if (!row) throw new StoreError('not_found', `thread ${threadId} not found`);
      const current = toThread(row);
      const next: ThreadRecord = {
        ...current,
        title: patch.title !== undefined ? patch.title : current.title,
        metadata: patch.metadata !== undefined ? patch.metadata : current.metadata,
        updatedAt: this.now(),
      };
      await c.run('UPDATE threads SET title = ?, metadata = ?, updated_at = ? WHERE thread_id = ?', [
        next.title,
        JSON.stringify(next.metadata),
        next.updatedAt,
        threadId,
      ]);
      return next;
    });
  }

  /** Deletes the thread and everything under it (cascade); deleting a missing thread is a no-op. */
  async deleteThread(threadId: string): Promise<void> {
    await this.tx(async (c) => {
      // Frames and canonical rows are deleted here, not by a cascade (on PostgreSQL they have no foreign key,
      // see its migrations). Appends lock the head row, then lane rows: locked in that order first, an append
      // either committed before (its rows are deleted below) or runs after and finds no thread or run.
      const { forUpdate } = this.db;
      await c.all(`SELECT head FROM thread_heads WHERE thread_id = ?${forUpdate}`, [threadId]);
      await c.all(`SELECT run_id FROM source_lanes WHERE thread_id = ? ORDER BY run_id${forUpdate}`, [
        threadId,
      ]);
      // The append-only triggers let canonical rows go only for a thread named here, inside this transaction.
      await c.run('INSERT INTO thread_deletions (thread_id) VALUES (?)', [threadId]);
      await c.run('DELETE FROM canonical_events WHERE thread_id = ?', [threadId]);
      await c.run('DELETE FROM thread_deletions WHERE thread_id = ?', [threadId]);
      await c.run('DELETE FROM source_frames WHERE run_id IN (SELECT run_id FROM runs WHERE thread_id = ?)', [
        threadId,
      ]);
      await c.run('DELETE FROM threads WHERE thread_id = ?', [threadId]);
      await c.run('DELETE FROM sync_changes WHERE session_id = ?', [threadId]);
      await c.run('DELETE FROM sync_heads WHERE session_id = ?', [threadId]);
    });
  }

  async listThreads(query: ListThreadsQuery): Promise<Page<ThreadRecord>> {
    const limit = query.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new StoreError('invalid', 'limit must be an integer between 1 and 1000');
    const where: string[] = [];
    const params: SqlParam[] = [];
    if (query.threadIds !== undefined) {
      // A scoped caller's page is cut from its own threads: filtering after paging would leak other ids.
      if (query.threadIds.length === 0) return { items: [], nextCursor: null };
      where.push(`thread_id IN (${query.threadIds.map(() => '?').join(', ')})`);
      params.push(...query.threadIds);
    }
    if (query.engine !== undefined) {
      where.push('engine = ?');
      params.push(query.engine);
    }
    if (query.search) {
      where.push("LOWER(title) LIKE ? ESCAPE '\\'");
      params.push(`%${query.search.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
    }
    if (query.cursor) {
      const [createdAt, threadId] = decodeCursor(query.cursor);
      where.push('(created_at < ? OR (created_at = ? AND thread_id < ?))');
      params.push(createdAt, createdAt, threadId);
    }
    params.push(limit + 1);
    const rows = await this.db.read((c) =>
      c.all<SqlRow>(
        `SELECT * FROM threads${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, thread_id DESC LIMIT ?`,
        params,
      ),
    );
    const items = rows.slice(0, limit).map(toThread);
    const last = items[items.length - 1];
    return {
      items,
      nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.threadId) : null,
    };
  }

  // sessions

  async getSession(threadId: string): Promise<HarnessSessionRecord | null> {
    const row = await this.db.read((c) =>
      this.one(c, 'SELECT * FROM harness_sessions WHERE thread_id = ?', [threadId]),
    );
    return row ? toSession(row) : null;
  }

  async bindSession(
    record: Omit<HarnessSessionRecord, 'generation' | 'updatedAt'>,
  ): Promise<HarnessSessionRecord> {
    return this.tx(async (c) => {
      if (!(await this.one(c, 'SELECT 1 AS x FROM threads WHERE thread_id = ?', [record.threadId]))) {
        throw new StoreError('not_found', `thread ${record.threadId} not found`);
      }
      const row = await this.one(
        c,
        `SELECT * FROM harness_sessions WHERE thread_id = ?${this.db.forUpdate}`,
        [record.threadId],
      );
      const current = row ? toSession(row) : null;
      const bindingChanged =
        !current ||
        current.nativeSessionId !== record.nativeSessionId ||
        sortedKeysJson(current.runtimeBinding) !== sortedKeysJson(record.runtimeBinding);
      const next: HarnessSessionRecord = {
        ...record,
        generation: current ? current.generation + (bindingChanged ? 1 : 0) : 1,
        updatedAt: this.now(),
      };
      const values: SqlParam[] = [
        next.provider,
        next.engine,
        next.nativeSessionId,
        JSON.stringify(next.runtimeBinding),
        next.protocolVersion,
        JSON.stringify(next.capabilities),
        next.generation,
        next.updatedAt,
        next.threadId,
      ];
      if (current) {
        await c.run(
          'UPDATE harness_sessions SET provider = ?, engine = ?, native_session_id = ?, runtime_binding = ?, protocol_version = ?, capabilities = ?, generation = ?, updated_at = ? WHERE thread_id = ?',
          values,
        );
      } else {
        await c.run(
          'INSERT INTO harness_sessions (provider, engine, native_session_id, runtime_binding, protocol_version, capabilities, generation, updated_at, thread_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
          values,
        );
      }
      return next;
    });
  }

  // durable commands and runs

  async createRun(input: {
    threadId: string;
    prompt: string;
    parentRunId?: string | null;
    options?: JsonObject;
    idempotencyKey?: string | null;
    expectedGeneration?: number;
  }): Promise<{ run: RunRecord; created: boolean }> {
    if (typeof input.threadId !== 'string' || input.threadId === '')
      throw new StoreError('invalid', 'threadId is required');
    if (typeof input.prompt !== 'string') throw new StoreError('invalid', 'prompt must be a string');
    const payload: JsonObject = {
      threadId: input.threadId,
      prompt: input.prompt,
      parentRunId: input.parentRunId ?? null,
      options: input.options ?? {},
    };
    const bodyHash = sha256HexOf(sortedKeysJson(payload));
    const key = input.idempotencyKey ?? null;
    return this.tx(async (c) => {
      if (key !== null) {
        const existing = await this.one(
          c,
          "SELECT run_id, body_hash FROM commands WHERE kind = 'run.create' AND idempotency_key = ?",
          [key],
        );
        if (existing) {
          if (existing.body_hash !== bodyHash) {
            throw new StoreError(
              'idempotency_conflict',
              `idempotency key ${key} was used with a different run.create body`,
            );
          }
          const run = await this.one(c, 'SELECT * FROM runs WHERE run_id = ?', [String(existing.run_id)]);
          if (run) return { run: toRun(run), created: false };
        }
      }
      if (!(await this.one(c, 'SELECT 1 AS x FROM threads WHERE thread_id = ?', [input.threadId]))) {
        throw new StoreError('not_found', `thread ${input.threadId} not found`);
      }
      if (input.expectedGeneration !== undefined) {
        const session = await this.one(c, 'SELECT generation FROM harness_sessions WHERE thread_id = ?', [
          input.threadId,
        ]);
        const generation = session ? Number(session.generation) : 0;
        if (generation !== input.expectedGeneration) {
          throw new StoreError(
            'stale_generation',
            `expectedGeneration ${input.expectedGeneration} is stale: the session is at generation ${generation}`,
          );
        }
      }
      if (input.parentRunId) {
        const parent = await this.one(c, 'SELECT thread_id FROM runs WHERE run_id = ?', [input.parentRunId]);
        if (!parent || parent.thread_id !== input.threadId) {
          throw new StoreError('invalid', `parentRunId ${input.parentRunId} is not a run of this thread`);
        }
      }
      // A process clock, no global lock: nothing reads createdAt as a cursor (cancels are a flag on the run).
      const now = this.now();
      const run: RunRecord = {
        runId: `run_${this.newId()}`,
        threadId: input.threadId,
        parentRunId: input.parentRunId ?? null,
        status: 'queued',
        prompt: input.prompt,
        options: input.options ?? {},
        createdAt: now,
        startedAt: null,
        endedAt: null,
        error: null,
        outcome: null,
        ownerId: null,
        canonicalizedAt: null,
        leaseUntil: null,
        statusVersion: 1,
        cancelRequestedAt: null,
      };
      await c.run(
        'INSERT INTO runs (run_id, thread_id, parent_run_id, status, prompt, options, created_at, status_version) VALUES (?, ?, ?, ?, ?, ?, ?, 1)',
        [run.runId, run.threadId, run.parentRunId, run.status, run.prompt, JSON.stringify(run.options), now],
      );
      await c.run(
        'INSERT INTO source_lanes (run_id, thread_id, max_native_seq, sealed_at) VALUES (?, ?, 0, NULL)',
        [run.runId, run.threadId],
      );
      await c.run(
        "INSERT INTO commands (command_id, kind, thread_id, run_id, idempotency_key, body_hash, payload, created_at) VALUES (?, 'run.create', ?, ?, ?, ?, ?, ?)",
        [`cmd_${this.newId()}`, run.threadId, run.runId, key, bodyHash, JSON.stringify(payload), now],
      );
      return { run, created: true };
    });
  }

  async requestCancel(runId: string, idempotencyKey?: string | null): Promise<CommandRecord> {
    const key = idempotencyKey ?? null;
    const bodyHash = sha256HexOf(sortedKeysJson({ runId }));
    return this.tx(async (c) => {
      if (key !== null) {
        const existing = await this.one(
          c,
          "SELECT * FROM commands WHERE kind = 'run.cancel' AND idempotency_key = ?",
          [key],
        );
        if (existing) {
          if (existing.body_hash !== bodyHash) {
            throw new StoreError(
              'idempotency_conflict',
              `idempotency key ${key} was used to cancel another run`,
            );
          }
          return toCommand(existing);
        }
      }
      const run = await this.one(c, 'SELECT thread_id FROM runs WHERE run_id = ?', [runId]);
      if (!run) throw new StoreError('not_found', `run ${runId} not found`);
      const command: CommandRecord = {
        commandId: `cmd_${this.newId()}`,
        kind: 'run.cancel',
        threadId: String(run.thread_id),
        runId,
        idempotencyKey: key,
        payload: { runId },
        createdAt: this.now(),
      };
      // The flag the owner of the run polls (and a claim of a queued run reads): one row, not a global order.
      await c.run(
        "UPDATE runs SET cancel_requested_at = COALESCE(cancel_requested_at, ?) WHERE run_id = ? AND status IN ('queued', 'running')",
        [command.createdAt, runId],
      );
      await c.run(
        'INSERT INTO commands (command_id, kind, thread_id, run_id, idempotency_key, body_hash, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [
          command.commandId,
          command.kind,
          command.threadId,
          runId,
          key,
          bodyHash,
          JSON.stringify(command.payload),
          command.createdAt,
        ],
      );
      return command;
    });
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const row = await this.db.read((c) => this.one(c, 'SELECT * FROM runs WHERE run_id = ?', [runId]));
    return row ? toRun(row) : null;
  }

  async listRuns(threadId: string): Promise<RunRecord[]> {
    const rows = await this.db.read((c) =>
      c.all<SqlRow>('SELECT * FROM runs WHERE thread_id = ? ORDER BY created_at, run_id', [threadId]),
    );
    return rows.map(toRun);
  }

  private leaseUntil(leaseMs: number): string {
    if (!Number.isFinite(leaseMs) || leaseMs <= 0)
      throw new StoreError('invalid', 'leaseMs must be positive');
    return new Date(Date.now() + leaseMs).toISOString();
  }

  private async claim(
    c: SqlConn,
    runId: string,
    ownerId: string,
    leaseMs: number,
  ): Promise<RunRecord | null> {
    const startedAt = this.now();
    const changed = await c.run(
      "UPDATE runs SET status = 'running', owner_id = ?, started_at = ?, lease_until = ?, status_version = status_version + 1 WHERE run_id = ? AND status = 'queued'",
      [ownerId, startedAt, this.leaseUntil(leaseMs), runId],
    );
    if (changed === 0) return null;
    const row = await this.one(c, 'SELECT * FROM runs WHERE run_id = ?', [runId]);
    return row ? toRun(row) : null;
  }

  async claimQueuedRun(ownerId: string, leaseMs = DEFAULT_RUN_LEASE_MS): Promise<RunRecord | null> {
    return this.tx(async (c) => {
      const next = await this.one(
        c,
        `SELECT run_id FROM runs WHERE status = 'queued' ORDER BY created_at, run_id LIMIT 1${this.db.skipLocked}`,
        [],
      );
      return next ? this.claim(c, String(next.run_id), ownerId, leaseMs) : null;
    });
  }

  async claimRun(runId: string, ownerId: string, leaseMs = DEFAULT_RUN_LEASE_MS): Promise<RunRecord | null> {
    return this.tx((c) => this.claim(c, runId, ownerId, leaseMs));
  }

  async listCommandsSince(afterCreatedAt: string | null): Promise<CommandRecord[]> {
    const rows = await this.db.read((c) =>
      afterCreatedAt === null
        ? c.all<SqlRow>('SELECT * FROM commands ORDER BY created_at, command_id')
        : c.all<SqlRow>('SELECT * FROM commands WHERE created_at > ? ORDER BY created_at, command_id', [
            afterCreatedAt,
          ]),
    );
    return rows.map(toCommand);
  }

  async listRunningRuns(): Promise<RunRecord[]> {
    const rows = await this.db.read((c) =>
      c.all<SqlRow>("SELECT * FROM runs WHERE status = 'running' ORDER BY created_at, run_id"),
    );
    return rows.map(toRun);
  }

  async renewRunLeases(ownerId: string, leaseMs: number): Promise<HeldRun[]> {
    const until = this.leaseUntil(leaseMs);
    return this.tx(async (c) => {
      await c.run("UPDATE runs SET lease_until = ? WHERE owner_id = ? AND status = 'running'", [
        until,
        ownerId,
      ]);
      return heldRuns(c, ownerId);
    });
  }

  listHeldRuns(ownerId: string): Promise<HeldRun[]> {
    return this.db.read((c) => heldRuns(c, ownerId));
  }

  async listExpiredRuns(limit = 100): Promise<RunRecord[]> {
    const rows = await this.db.read((c) =>
      c.all<SqlRow>(
        "SELECT * FROM runs WHERE status = 'running' AND (lease_until IS NULL OR lease_until < ?) ORDER BY created_at, run_id LIMIT ?",
        [this.now(), limit],
      ),
    );
    return rows.map(toRun);
  }

  async takeExpiredRun(runId: string, ownerId: string, leaseMs: number): Promise<RunRecord | null> {
    const until = this.leaseUntil(leaseMs);
    return this.tx(async (c) => {
      const now = this.now();
      const row = await this.one(
        c,
        `SELECT * FROM runs WHERE run_id = ? AND status = 'running' AND (lease_until IS NULL OR lease_until < ?)${this.db.forUpdate}`,
        [runId, now],
      );
      if (!row) return null;
      // Conditional on the owner read above: of racing takers (PostgreSQL waits on the row lock, SQLite has
      // one writer) exactly one changes the row; the others see another owner and a live lease.
      const changed = await c.run(
        "UPDATE runs SET owner_id = ?, lease_until = ? WHERE run_id = ? AND status = 'running' AND (lease_until IS NULL OR lease_until < ?)",
        [ownerId, until, runId, now],
      );
      return changed === 1 ? toRun(row) : null;
    });
  }

  async releaseRunLeases(ownerId: string, runIds?: readonly string[]): Promise<number> {
    const expired = RELEASED_LEASE;
    return this.tx(async (c) => {
      if (runIds === undefined)
        return c.run("UPDATE runs SET lease_until = ? WHERE owner_id = ? AND status = 'running'", [
          expired,
          ownerId,
        ]);
      let n = 0;
      for (const runId of runIds) {
        n += await c.run(
          "UPDATE runs SET lease_until = ? WHERE run_id = ? AND owner_id = ? AND status = 'running'",
          [expired, runId, ownerId],
        );
      }
      return n;
    });
  }

  /** Settling twice with the same status is a no-op (a retry); changing a settled status is a conflict. */
  async finalizeRun(
    runId: string,
    status: 'completed' | 'failed',
    error?: string | null,
    outcome: RunOutcome = status,
  ): Promise<RunRecord> {
    if (status !== 'completed' && status !== 'failed')
      throw new StoreError('invalid', 'status must be completed or failed');
    // A cancel is an end the client asked for: never a failure.
    if (outcome === 'cancelled' ? status !== 'completed' : outcome !== status)
      throw new StoreError('invalid', `outcome ${outcome} does not go with status ${status}`);
    return this.tx(async (c) => {
      const row = await this.one(c, `SELECT * FROM runs WHERE run_id = ?${this.db.forUpdate}`, [runId]);
      if (!row) throw new StoreError('not_found', `run ${runId} not found`);
      const run = toRun(row);
      if (run.status === 'completed' || run.status === 'failed') {
        if (run.status === status) return run;
        throw new StoreError('conflict', `run ${runId} is already ${run.status}`);
      }
      const endedAt = this.now();
      await c.run(
        'UPDATE runs SET status = ?, ended_at = ?, error = ?, outcome = ?, lease_until = NULL, status_version = status_version + 1 WHERE run_id = ?',
        [status, endedAt, error ?? null, outcome, runId],
      );
      // The canonicalization intent commits with the settled status: a crash cannot separate them.
      await c.run(
        'INSERT INTO canonicalization_outbox (run_id, thread_id, enqueued_at, attempts) VALUES (?, ?, ?, 0) ON CONFLICT (run_id) DO NOTHING',
        [runId, run.threadId, endedAt],
      );
      return {
        ...run,
        status,
        endedAt,
        error: error ?? null,
        outcome,
        leaseUntil: null,
        statusVersion: run.statusVersion + 1,
      };
    });
  }

  // source lane

  appendFrames(runId: string, frames: FrameInput[]): Promise<SourceFrameRecord[]> {
    try {
      validateFrames(runId, frames);
    } catch (error) {
      return Promise.reject(error);
    }
    if (frames.length === 0) return this.readLaneExists(runId).then(() => []);
    return this.queue.enqueue(appendFramesJob(this.db, runId, frames, () => this.now(), this.rawLimits));
  }

  private async readLaneExists(runId: string): Promise<void> {
    const row = await this.db.read((c) =>
      this.one(c, 'SELECT 1 AS x FROM source_lanes WHERE run_id = ?', [runId]),
    );
    if (!row) throw new StoreError('not_found', `run ${runId} not found`);
  }

  readFrames(runId: string, afterNativeSeq = 0): Promise<SourceFrameRecord[]> {
    return this.db.read((c) => readFrameRows(c, runId, afterNativeSeq));
  }

  readRawFrames(runId: string, afterNativeSeq = 0): Promise<RawFrameRecord[]> {
    return this.db.read((c) => readRawRows(c, runId, afterNativeSeq));
  }

  async sealSource(runId: string): Promise<SourceWatermark> {
    return this.tx(async (c) => {
      const lane = await this.one(
        c,
        `SELECT sealed_at FROM source_lanes WHERE run_id = ?${this.db.forUpdate}`,
        [runId],
      );
      if (!lane) throw new StoreError('not_found', `run ${runId} not found`);
      if (lane.sealed_at === null) {
        await c.run('UPDATE source_lanes SET sealed_at = ? WHERE run_id = ?', [this.now(), runId]);
      }
      return computeWatermark(c, runId);
    });
  }

  readWatermark(runId: string): Promise<SourceWatermark> {
    return this.db.read((c) => computeWatermark(c, runId));
  }

  async listRefusedFrames(
    runId: string,
  ): Promise<{ receivedAt: string; frame: JsonValue; reason: string }[]> {
    const rows = await this.db.read((c) =>
      c.all<SqlRow>(
        'SELECT received_at, frame, reason FROM refused_frames WHERE run_id = ? ORDER BY refusal_id',
        [runId],
      ),
    );
    return rows.map((r) => ({
      receivedAt: String(r.received_at),
      frame: JSON.parse(String(r.frame)) as JsonValue,
      reason: String(r.reason),
    }));
  }

  // canonical events

  appendEvents(threadId: string, writes: EventWrite[], provisional: boolean): Promise<AppendResult> {
    try {
      validateWrites(threadId, writes);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.queue.enqueue(appendEventsJob(this.db, threadId, writes, provisional, () => this.now()));
  }

  readEvents(threadId: string, afterDeliverySeq: number, limit: number): Promise<DeliveryRow[]> {
    if (!Number.isInteger(limit) || limit < 1)
      return Promise.reject(new StoreError('invalid', 'limit must be ≥ 1'));
    return this.db.read((c) => readEventRows(c, threadId, afterDeliverySeq, limit));
  }

  async headDeliverySeq(threadId: string): Promise<number> {
    const row = await this.db.read((c) =>
      this.one(c, 'SELECT head FROM thread_heads WHERE thread_id = ?', [threadId]),
    );
    return row ? Number(row.head) : 0;
  }

  latestEvents(query: { threadId: string; runId?: string }): Promise<DeliveryRow[]> {
    return this.db.read((c) => latestEventRows(c, query.threadId, query.runId));
  }

  onCommitted(listener: (threadId: string, headDeliverySeq: number) => void): () => void {
    this.listeners.add(listener);
    if (!this.stopListening && !this.closed) {
      // Commits of this store are published in-process right after commit; the backend brings the others'.
      this.stopListening = this.db.listenCommitted((threadId, head, origin) => {
        if (origin !== this.origin) this.publish(new Map([[threadId, head]]));
      });
    }
    return () => {
      this.listeners.delete(listener);
    };
  }

  async broadcastSignal(threadId: string, signal: JsonObject): Promise<void> {
    if (this.closed) return;
    await this.db.notifySignal(threadId, JSON.stringify(signal), this.origin);
  }

  listening(): Promise<void> {
    return this.closed ? Promise.resolve() : this.db.listening();
  }

  onListening(listener: () => void): () => void {
    return this.db.onListening(() => {
      try {
        listener();
      } catch {
        // A listener's bug must not stop the others.
      }
    });
  }

  onSignal(listener: (threadId: string, signal: JsonObject) => void): () => void {
    return this.db.listenSignals((threadId, payload, origin) => {
      if (origin === this.origin) return;
      let signal: unknown;
      try {
        signal = JSON.parse(payload);
      } catch {
        return; // not ours to understand: a reader tolerates what it does not know
      }
      if (signal === null || typeof signal !== 'object' || Array.isArray(signal)) return;
      try {
        listener(threadId, signal as JsonObject);
      } catch {
        // A listener's bug must not stop the others.
      }
    });
  }

  // completion

  async leaseOutbox(workerId: string, limit: number, leaseMs: number): Promise<OutboxEntry[]> {
    return this.tx(async (c) => {
      const now = this.now();
      const rows = await c.all<SqlRow>(
        `SELECT * FROM canonicalization_outbox WHERE lease_until IS NULL OR lease_until < ? ORDER BY enqueued_at, run_id LIMIT ?${this.db.skipLocked}`,
        [now, limit],
      );
      const leaseUntil = new Date(Date.now() + leaseMs).toISOString();
      const entries: OutboxEntry[] = [];
      for (const row of rows) {
        await c.run(
          'UPDATE canonicalization_outbox SET leased_by = ?, lease_until = ?, attempts = attempts + 1 WHERE run_id = ?',
          [workerId, leaseUntil, String(row.run_id)],
        );
        const entry = toOutbox(row);
        entries.push({ ...entry, attempts: entry.attempts + 1 });
      }
      return entries;
    });
  }

  /**
   * Writes the completion record only if the lane is sealed and the watermark re-computed now equals the one
   * the translation was made from; otherwise null, and the outbox entry stays for a retry.
   */
  async completeCanonicalization(runId: string, expected: SourceWatermark): Promise<CompletionRecord | null> {
    return this.tx(async (c) => {
      const run = await this.one(c, 'SELECT status, thread_id FROM runs WHERE run_id = ?', [runId]);
      if (!run) throw new StoreError('not_found', `run ${runId} not found`);
      const done = await this.one(c, 'SELECT * FROM canonicalization_completions WHERE run_id = ?', [runId]);
      if (done) return toCompletion(done);
      if (run.status !== 'completed' && run.status !== 'failed') {
        throw new StoreError(
          'conflict',
          `run ${runId} is ${String(run.status)}: settle it before completing`,
        );
      }
      // Lock the lane so no frame lands between the re-read and the commit.
      await c.all(`SELECT run_id FROM source_lanes WHERE run_id = ?${this.db.forUpdate}`, [runId]);
      const current = await computeWatermark(c, runId);
      if (
        !current.sealed ||
        current.maxNativeSeq !== expected.maxNativeSeq ||
        current.signature !== expected.signature
      ) {
        return null;
      }
      const threadId = String(run.thread_id);
      const last = await this.one(
        c,
        'SELECT COALESCE(MAX(delivery_seq), 0) AS last FROM canonical_events WHERE thread_id = ? AND run_id = ?',
        [threadId, runId],
      );
      const record: CompletionRecord = {
        runId,
        threadId,
        lastDeliverySeq: Number(last?.last ?? 0),
        watermark: current,
        completedAt: this.now(),
      };
      await c.run(
        'INSERT INTO canonicalization_completions (run_id, thread_id, last_delivery_seq, max_native_seq, signature, completed_at) VALUES (?, ?, ?, ?, ?, ?)',
        [
          runId,
          threadId,
          record.lastDeliverySeq,
          current.maxNativeSeq,
          current.signature,
          record.completedAt,
        ],
      );
      await c.run('DELETE FROM canonicalization_outbox WHERE run_id = ?', [runId]);
      await c.run('UPDATE runs SET canonicalized_at = ? WHERE run_id = ?', [record.completedAt, runId]);
      return record;
    });
  }

  async releaseOutbox(runId: string, error: string): Promise<void> {
    await this.tx((c) =>
      c.run(
        'UPDATE canonicalization_outbox SET leased_by = NULL, lease_until = NULL, last_error = ? WHERE run_id = ?',
        [error, runId],
      ),
    );
  }

  async getCompletion(runId: string): Promise<CompletionRecord | null> {
    const row = await this.db.read((c) =>
      this.one(c, 'SELECT * FROM canonicalization_completions WHERE run_id = ?', [runId]),
    );
    return row ? toCompletion(row) : null;
  }

  async listCompletions(threadId: string): Promise<CompletionRecord[]> {
    const rows = await this.db.read((c) =>
      c.all<SqlRow>(
        'SELECT * FROM canonicalization_completions WHERE thread_id = ? ORDER BY completed_at, run_id',
        [threadId],
      ),
    );
    return rows.map(toCompletion);
  }

  // interactions

  /** The first answer to a target wins: the same answer again returns it, a different one is a conflict. */
  async recordAnswer(
    answer: Omit<InteractionAnswerRecord, 'answerId' | 'createdAt' | 'deliveredAt'>,
  ): Promise<InteractionAnswerRecord> {
    if (answer.kind !== 'approval' && answer.kind !== 'question')
      throw new StoreError('invalid', 'kind must be approval or question');
    return this.tx(async (c) => {
      const existing = await this.one(
        c,
        'SELECT * FROM interaction_answers WHERE run_id = ? AND kind = ? AND target_id = ?',
        [answer.runId, answer.kind, answer.targetId],
      );
      if (existing) {
        const record = toAnswer(existing);
        if (sortedKeysJson(record.answer) === sortedKeysJson(answer.answer)) return record;
        throw new StoreError(
          'conflict',
          `${answer.kind} ${answer.targetId} was already answered differently`,
        );
      }
      if (!(await this.one(c, 'SELECT 1 AS x FROM threads WHERE thread_id = ?', [answer.threadId]))) {
        throw new StoreError('not_found', `thread ${answer.threadId} not found`);
      }
      const record: InteractionAnswerRecord = {
        ...answer,
        answerId: `ans_${this.newId()}`,
        createdAt: this.now(),
        deliveredAt: null,
      };
      await c.run(
        'INSERT INTO interaction_answers (answer_id, thread_id, run_id, kind, target_id, answer, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [
          record.answerId,
          record.threadId,
          record.runId,
          record.kind,
          record.targetId,
          JSON.stringify(record.answer),
          record.createdAt,
        ],
      );
      return record;
    });
  }

  async pendingAnswers(runId: string): Promise<InteractionAnswerRecord[]> {
    const rows = await this.db.read((c) =>
      c.all<SqlRow>(
        'SELECT * FROM interaction_answers WHERE run_id = ? AND delivered_at IS NULL ORDER BY created_at, answer_id',
        [runId],
      ),
    );
    return rows.map(toAnswer);
  }

  async markAnswerDelivered(answerId: string): Promise<void> {
    await this.tx(async (c) => {
      const row = await this.one(c, 'SELECT delivered_at FROM interaction_answers WHERE answer_id = ?', [
        answerId,
      ]);
      if (!row) throw new StoreError('not_found', `answer ${answerId} not found`);
      if (row.delivered_at === null) {
        await c.run('UPDATE interaction_answers SET delivered_at = ? WHERE answer_id = ?', [
          this.now(),
          answerId,
        ]);
      }
    });
  }

  // sync

  /** Returns the changes stored by this call (a retried change already present is left out). */
  async appendSyncChanges(
    sessionId: string,
    changes: Omit<SyncChangeRecord, 'serverSeq' | 'receivedAt' | 'sessionId'>[],
  ): Promise<SyncChangeRecord[]> {
    changes.forEach((ch, i) => {
      if (typeof ch?.clientId !== 'string' || ch.clientId === '')
        throw new StoreError('invalid', `changes[${i}].clientId is required`);
      if (!Number.isInteger(ch.version) || ch.version < 1)
        throw new StoreError('invalid', `changes[${i}].version must be a positive integer`);
      if (typeof ch.key !== 'string') throw new StoreError('invalid', `changes[${i}].key is required`);
      if (!ch.vector || typeof ch.vector !== 'object')
        throw new StoreError('invalid', `changes[${i}].vector is required`);
    });
    return this.tx(async (c) => {
      // The upsert locks the session's counter row, so serverSeq is allocated in commit order.
      const headRow = await this.one(
        c,
        'INSERT INTO sync_heads (session_id, head) VALUES (?, 0) ON CONFLICT (session_id) DO UPDATE SET head = sync_heads.head RETURNING head',
        [sessionId],
      );
      let head = Number(headRow?.head ?? 0);
      const receivedAt = this.now();
      const stored: SyncChangeRecord[] = [];
      for (const ch of changes) {
        const seen = await this.one(
          c,
          'SELECT 1 AS x FROM sync_changes WHERE session_id = ? AND client_id = ? AND version = ?',
          [sessionId, ch.clientId, ch.version],
        );
        if (seen) continue;
        head += 1;
        const record: SyncChangeRecord = { ...ch, sessionId, serverSeq: head, receivedAt };
        await c.run(
          'INSERT INTO sync_changes (session_id, client_id, version, key, value, vector, server_seq, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          [
            sessionId,
            ch.clientId,
            ch.version,
            ch.key,
            JSON.stringify(ch.value ?? null),
            JSON.stringify(ch.vector),
            head,
            receivedAt,
          ],
        );
        stored.push(record);
      }
      if (stored.length > 0)
        await c.run('UPDATE sync_heads SET head = ? WHERE session_id = ?', [head, sessionId]);
      return stored;
    });
  }

  async listSyncChanges(sessionId: string): Promise<SyncChangeRecord[]> {
    const rows = await this.db.read((c) =>
      c.all<SqlRow>('SELECT * FROM sync_changes WHERE session_id = ? ORDER BY server_seq', [sessionId]),
    );
    return rows.map(toSyncChange);
  }

  // artifacts

  /** Stored once per content: the id is `sha256-<hex>`; a second put of the same bytes returns the first ref. */
  async putArtifact(content: Uint8Array, contentType: string): Promise<ArtifactRef> {
    if (!(content instanceof Uint8Array)) throw new StoreError('invalid', 'content must be bytes');
    if (typeof contentType !== 'string' || contentType === '')
      throw new StoreError('invalid', 'contentType is required');
    const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    const sha256 = sha256HexOf(bytes);
    const id = `sha256-${sha256}`;
    return this.tx(async (c) => {
      await c.run(
        'INSERT INTO artifacts (id, sha256, bytes, content_type, content, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
        [id, sha256, bytes.byteLength, contentType, bytes, this.now()],
      );
      const row = await this.one(c, 'SELECT id, sha256, bytes, content_type FROM artifacts WHERE id = ?', [
        id,
      ]);
      return {
        id,
        sha256,
        bytes: Number(row?.bytes ?? bytes.byteLength),
        contentType: String(row?.content_type ?? contentType),
      };
    });
  }

  async artifactInThreads(id: string, threadIds: readonly string[]): Promise<boolean> {
    if (typeof id !== 'string' || !ARTIFACT_ID.test(id) || threadIds.length === 0) return false;
    const ids = threadIds.map(() => '?').join(', ');
    // An id is 'sha256-' and 64 hex digits: nothing LIKE treats specially. Only an ArtifactRef's own `"id":"…"`
    // matches: the same text inside a string value (a prompt naming another thread's id) has its quotes escaped.
    const row = await this.db.read((c) =>
      this.one(
        c,
        `SELECT 1 AS x FROM canonical_events WHERE thread_id IN (${ids}) AND event LIKE ?
         UNION ALL SELECT 1 AS x FROM source_frame_raw r JOIN runs ON runs.run_id = r.run_id
           WHERE runs.thread_id IN (${ids}) AND r.artifact_id = ? LIMIT 1`,
        [...threadIds, `%"id":"${id}"%`, ...threadIds, id],
      ),
    );
    return row !== undefined;
  }

  async putArtifactStream(
    content: AsyncIterable<Uint8Array>,
    contentType: string,
    sha256: string,
  ): Promise<ArtifactRef> {
    return putChunkedArtifact((fn) => this.tx(fn), content, contentType, sha256, this.now());
  }

  async openArtifact(id: string): Promise<OpenArtifact | null> {
    if (typeof id !== 'string' || !ARTIFACT_ID.test(id)) return null;
    const row = await this.db.read((c) => this.one(c, 'SELECT * FROM artifacts WHERE id = ?', [id]));
    return row ? openArtifactRow((fn) => this.db.read(fn), row) : null;
  }

  async getArtifact(id: string): Promise<{ ref: ArtifactRef; content: Uint8Array } | null> {
    if (typeof id !== 'string' || !ARTIFACT_ID.test(id)) return null;
    const row = await this.db.read((c) => this.one(c, 'SELECT * FROM artifacts WHERE id = ?', [id]));
    if (!row) return null;
    if (row.chunk_bytes !== null && row.chunk_bytes !== undefined) {
      const opened = openArtifactRow((fn) => this.db.read(fn), row);
      const pieces: Uint8Array[] = [];
      for await (const piece of opened.read()) pieces.push(piece);
      const whole = Buffer.concat(pieces);
      return { ref: opened.ref, content: new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength) };
    }
    const content = row.content as Buffer;
    return {
      ref: {
        id,
        sha256: String(row.sha256),
        bytes: Number(row.bytes),
        contentType: String(row.content_type),
      },
      content: new Uint8Array(content.buffer, content.byteOffset, content.byteLength),
    };
  }
}

async function heldRuns(c: SqlConn, ownerId: string): Promise<HeldRun[]> {
  const rows = await c.all<SqlRow>(
    "SELECT run_id, cancel_requested_at FROM runs WHERE owner_id = ? AND status = 'running' ORDER BY run_id",
    [ownerId],
  );
  return rows.map((r) => ({ runId: String(r.run_id), cancelRequested: r.cancel_requested_at !== null }));
}

function encodeCursor(createdAt: string, threadId: string): string {
  return Buffer.from(JSON.stringify([createdAt, threadId])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string') {
      return [value[0], value[1]];
    }
  } catch {
    // fall through to the error below
  }
  throw new StoreError('invalid', 'cursor is not a cursor this store issued');
}
