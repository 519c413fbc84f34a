import type { JsonObject } from '@agentlane/contract';
import { storableText } from '@agentlane/sql';
import {
  type CommandRecord,
  type CreateRunInput,
  DEFAULT_RUN_LEASE_MS,
  type HeldRun,
  RELEASED_LEASE,
  type RunOutcome,
  type RunRecord,
  type RunStore,
} from '../../roles/runs.js';
import { StoreError } from '../../store.js';
import { toCommand, toRun } from '../rows.js';
import { sha256HexOf, sortedKeysJson } from '../sorted-keys-json.js';
import type { SqlConn, SqlRow } from '../sql-conn.js';
import { one, type SqlContext } from './context.js';

/**
 * Durable commands and runs in SQL: run.create and run.cancel with their idempotency keys, claims and leases,
 * settling.
 */
export class SqlRuns implements RunStore {
  constructor(private readonly ctx: SqlContext) {}

  async createRun(input: CreateRunInput): Promise<{ run: RunRecord; created: boolean }> {
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
    return this.ctx.tx(async (c) => {
      if (key !== null) {
        const existing = await one(
          c,
          "SELECT run_id, thread_id, body_hash FROM commands WHERE kind = 'run.create' AND idempotency_key = ?",
          [key],
        );
        if (existing) {
          if (existing.body_hash !== bodyHash) {
            const otherThread = String(existing.thread_id) !== input.threadId;
            throw new StoreError(
              'idempotency_conflict',
              `idempotency key ${key} was used ${otherThread ? 'on another thread' : 'with a different run.create body'}`,
              otherThread ? 'other_thread' : 'other_body',
            );
          }
          const run = await one(c, 'SELECT * FROM runs WHERE run_id = ?', [String(existing.run_id)]);
          if (run) return { run: toRun(run), created: false };
        }
      }
      await checkRunTarget(c, input, this.ctx.db.forShare);
      // A process clock, no global lock: nothing reads createdAt as a cursor (cancels are a flag on the run).
      const now = this.ctx.now();
      const run: RunRecord = {
        runId: `run_${this.ctx.newId()}`,
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
        [`cmd_${this.ctx.newId()}`, run.threadId, run.runId, key, bodyHash, JSON.stringify(payload), now],
      );
      return { run, created: true };
    });
  }

  async requestCancel(runId: string, idempotencyKey?: string | null): Promise<CommandRecord> {
    const key = idempotencyKey ?? null;
    const bodyHash = sha256HexOf(sortedKeysJson({ runId }));
    return this.ctx.tx(async (c) => {
      if (key !== null) {
        const existing = await one(
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
      const run = await one(c, 'SELECT thread_id FROM runs WHERE run_id = ?', [runId]);
      if (!run) throw new StoreError('not_found', `run ${runId} not found`);
      const command: CommandRecord = {
        commandId: `cmd_${this.ctx.newId()}`,
        kind: 'run.cancel',
        threadId: String(run.thread_id),
        runId,
        idempotencyKey: key,
        payload: { runId },
        createdAt: this.ctx.now(),
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
    const row = await this.ctx.db.read((c) => one(c, 'SELECT * FROM runs WHERE run_id = ?', [runId]));
    return row ? toRun(row) : null;
  }

  async listRuns(threadId: string): Promise<RunRecord[]> {
    const rows = await this.ctx.db.read((c) =>
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
    const startedAt = this.ctx.now();
    const changed = await c.run(
      "UPDATE runs SET status = 'running', owner_id = ?, started_at = ?, lease_until = ?, status_version = status_version + 1 WHERE run_id = ? AND status = 'queued'",
      [ownerId, startedAt, this.leaseUntil(leaseMs), runId],
    );
    if (changed === 0) return null;
    const row = await one(c, 'SELECT * FROM runs WHERE run_id = ?', [runId]);
    return row ? toRun(row) : null;
  }

  async claimQueuedRun(ownerId: string, leaseMs = DEFAULT_RUN_LEASE_MS): Promise<RunRecord | null> {
    return this.ctx.tx(async (c) => {
      const next = await one(
        c,
        // A thread's runs take turns: the oldest queued run of a thread with nothing running, and nothing
        // queued before it (they share the thread's engine session, which takes one prompt at a time).
        `SELECT r.run_id FROM runs r WHERE r.status = 'queued' AND NOT EXISTS (
           SELECT 1 FROM runs o WHERE o.thread_id = r.thread_id AND (o.status = 'running'
             OR (o.status = 'queued' AND (o.created_at < r.created_at
               OR (o.created_at = r.created_at AND o.run_id < r.run_id)))))
         ORDER BY r.created_at, r.run_id LIMIT 1${this.ctx.db.skipLocked}`,
        [],
      );
      return next ? this.claim(c, String(next.run_id), ownerId, leaseMs) : null;
    });
  }

  async claimRun(runId: string, ownerId: string, leaseMs = DEFAULT_RUN_LEASE_MS): Promise<RunRecord | null> {
    return this.ctx.tx((c) => this.claim(c, runId, ownerId, leaseMs));
  }

  async listCommandsSince(afterCreatedAt: string | null): Promise<CommandRecord[]> {
    const rows = await this.ctx.db.read((c) =>
      afterCreatedAt === null
        ? c.all<SqlRow>('SELECT * FROM commands ORDER BY created_at, command_id')
        : c.all<SqlRow>('SELECT * FROM commands WHERE created_at > ? ORDER BY created_at, command_id', [
            afterCreatedAt,
          ]),
    );
    return rows.map(toCommand);
  }

  async listRunningRuns(): Promise<RunRecord[]> {
    const rows = await this.ctx.db.read((c) =>
      c.all<SqlRow>("SELECT * FROM runs WHERE status = 'running' ORDER BY created_at, run_id"),
    );
    return rows.map(toRun);
  }

  async renewRunLeases(ownerId: string, leaseMs: number): Promise<HeldRun[]> {
    const until = this.leaseUntil(leaseMs);
    return this.ctx.tx(async (c) => {
      await c.run("UPDATE runs SET lease_until = ? WHERE owner_id = ? AND status = 'running'", [
        until,
        ownerId,
      ]);
      return heldRuns(c, ownerId);
    });
  }

  listHeldRuns(ownerId: string): Promise<HeldRun[]> {
    return this.ctx.db.read((c) => heldRuns(c, ownerId));
  }

  async listExpiredRuns(limit = 100): Promise<RunRecord[]> {
    const rows = await this.ctx.db.read((c) =>
      c.all<SqlRow>(
        "SELECT * FROM runs WHERE status = 'running' AND (lease_until IS NULL OR lease_until < ?) ORDER BY created_at, run_id LIMIT ?",
        [this.ctx.now(), limit],
      ),
    );
    return rows.map(toRun);
  }

  async takeExpiredRun(runId: string, ownerId: string, leaseMs: number): Promise<RunRecord | null> {
    const until = this.leaseUntil(leaseMs);
    return this.ctx.tx(async (c) => {
      const now = this.ctx.now();
      const row = await one(
        c,
        `SELECT * FROM runs WHERE run_id = ? AND status = 'running' AND (lease_until IS NULL OR lease_until < ?)${this.ctx.db.forUpdate}`,
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
    return this.ctx.tx(async (c) => {
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
    const stored = error === undefined || error === null ? null : storableText(error);
    return this.ctx.tx(async (c) => {
      const row = await one(c, `SELECT * FROM runs WHERE run_id = ?${this.ctx.db.forUpdate}`, [runId]);
      if (!row) throw new StoreError('not_found', `run ${runId} not found`);
      const run = toRun(row);
      if (run.status === 'completed' || run.status === 'failed') {
        if (run.status === status) return run;
        throw new StoreError('conflict', `run ${runId} is already ${run.status}`);
      }
      const endedAt = this.ctx.now();
      await c.run(
        'UPDATE runs SET status = ?, ended_at = ?, error = ?, outcome = ?, lease_until = NULL, status_version = status_version + 1 WHERE run_id = ?',
        [status, endedAt, stored, outcome, runId],
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
        error: stored,
        outcome,
        leaseUntil: null,
        statusVersion: run.statusVersion + 1,
      };
    });
  }
}

/**
 * run.create's checks inside its transaction: the thread exists, the generation holds, the parent is its.
 * The thread's row is held (FOR SHARE on PostgreSQL; SQLite's writer is alone) until the run commits, so a
 * deleteThread of another process, which locks it FOR UPDATE, either went first (no thread: `not_found`, never
 * a foreign-key error) or waits and then sees this run (and refuses).
 */
async function checkRunTarget(c: SqlConn, input: CreateRunInput, forShare: string): Promise<void> {
  if (!(await one(c, `SELECT 1 AS x FROM threads WHERE thread_id = ?${forShare}`, [input.threadId]))) {
    throw new StoreError('not_found', `thread ${input.threadId} not found`);
  }
  if (input.expectedGeneration !== undefined) {
    const session = await one(c, 'SELECT generation FROM harness_sessions WHERE thread_id = ?', [
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
    const parent = await one(c, 'SELECT thread_id FROM runs WHERE run_id = ?', [input.parentRunId]);
    if (!parent || parent.thread_id !== input.threadId) {
      throw new StoreError('invalid', `parentRunId ${input.parentRunId} is not a run of this thread`);
    }
  }
}

async function heldRuns(c: SqlConn, ownerId: string): Promise<HeldRun[]> {
  const rows = await c.all<SqlRow>(
    "SELECT run_id, cancel_requested_at FROM runs WHERE owner_id = ? AND status = 'running' ORDER BY run_id",
    [ownerId],
  );
  return rows.map((r) => ({ runId: String(r.run_id), cancelRequested: r.cancel_requested_at !== null }));
}
