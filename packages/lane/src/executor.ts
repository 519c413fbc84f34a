import type { JsonObject, JsonValue } from '@agentlane/contract';
import type {
  ApprovalAnswer,
  EngineDriver,
  EngineSession,
  HarnessFrame,
  QuestionAnswer,
  RawFrame,
  SessionBinding,
  TurnIO,
  TurnOutcome,
} from '@agentlane/engine-kit';
import {
  type ArtifactStore,
  type EventStore,
  type InteractionAnswerRecord,
  type InteractionStore,
  RELEASED_LEASE,
  type RunOutcome,
  type RunRecord,
  type RunStore,
  type SessionStore,
  type SourceLaneStore,
  StoreError,
  type ThreadRecord,
  type ThreadStore,
} from '@agentlane/store';
import type { Canonicalizer } from './canonicalizer.js';
import type { PublishHub } from './hub.js';
import { Materializer } from './offload.js';
import { engineLostError, SYSTEM_ANSWERER, settleLostRun } from './recovery.js';
import { RunPipeline } from './run-pipeline.js';
import { errorMessage, RunTranslation } from './run-translation.js';
import type { AuditSink } from './types.js';

type Log = (level: 'info' | 'warn' | 'error', message: string, detail?: unknown) => void;

/** The roles the executor uses: a run's thread and session, its lane and rows, its answers, artifacts. */
type ExecutorStore = ThreadStore &
  SessionStore &
  RunStore &
  SourceLaneStore &
  EventStore &
  InteractionStore &
  ArtifactStore;

export interface RunExecutorOptions {
  store: ExecutorStore;
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
  audit?: AuditSink;
  log?: Log;
}

interface Waiter {
  kind: 'approval' | 'question';
  targetId: string;
  resolve: (answer: InteractionAnswerRecord | null) => void;
  /** Fires when nobody answered within approvalTimeoutMs. */
  timer?: NodeJS.Timeout;
}

interface ActiveRun {
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

interface OpenSession {
  session: EngineSession;
  driver: EngineDriver;
  generation: number;
}

function harness(frame: HarnessFrame): JsonValue {
  return frame as unknown as JsonValue;
}

/**
 * Executes queued runs: claims them (durable run.create commands), opens or reattaches the thread's engine
 * session, runs the turn with a TurnIO backed by the store (frames to the source lane, run.cancel → abort,
 * answers recorded through the API → awaitApproval/awaitQuestion), then settles the run (which enqueues its
 * canonicalization in the same transaction) and publishes run.status.
 */
export class RunExecutor {
  private readonly active = new Map<string, ActiveRun>();
  private readonly sessions = new Map<string, OpenSession>();
  /** Threads whose session is being opened: one open at a time per thread. */
  private readonly opening = new Map<string, Promise<OpenSession>>();
  private readonly cancelled = new Set<string>();
  /** Runs stop() handed back: their leases are released once their turns are stopped. */
  private readonly handedBack = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private leaseTimer: NodeJS.Timeout | null = null;
  private claiming = false;
  private polling = false;
  private leasing: Promise<void> | null = null;
  private stopped = true;

  constructor(private readonly o: RunExecutorOptions) {}

  async start(): Promise<void> {
    this.stopped = false;
    // Runs of processes that died while this one was down are settled now, not one renewal later.
    await this.reclaimExpired().catch((err) =>
      this.o.log?.('warn', 'reclaiming runs of dead processes failed', { error: errorMessage(err) }),
    );
    this.timer = setInterval(() => void this.tick(), this.o.pollIntervalMs);
    this.timer.unref();
    this.leaseTimer = setInterval(() => void this.leaseTick(), this.o.leaseRenewMs);
    this.leaseTimer.unref();
    this.kick();
  }

  /**
   * Stops taking runs, waits up to `graceMs` for the running ones to finish, then hands the rest back: their
   * turns are stopped here, what the engine emitted is flushed, and their leases expire at once so another
   * process (or this one after a restart) settles them. A run waiting for an answer is handed back at once:
   * nobody may answer within the grace period. Never settles a run as cancelled, and is done within graceMs
   * (plus one store write) even when an engine ignores its abort.
   */
  async stop(graceMs = 0): Promise<void> {
    this.stopped = true;
    const deadline = Date.now() + Math.max(0, graceMs);
    // Part of the grace period is kept for handing back: stopping turns and flushing their frames.
    const handBackMs = Math.min(2000, Math.max(0, graceMs) / 3);
    for (;;) {
      for (const a of this.active.values()) if (a.waiters.size > 0 && !a.settling) this.handBack(a);
      const left = deadline - handBackMs - Date.now();
      if (this.active.size === 0 || left <= 0) break;
      await Promise.race([
        Promise.allSettled([...this.active.values()].map((a) => a.done)),
        sleep(Math.min(left, 100)),
      ]);
    }
    for (const a of this.active.values()) if (!a.settling) this.handBack(a);
    const remaining = [...this.active.values()];
    // What is left of the period after the stopped turns flushed is for the store write and closing engines.
    const tail = Math.min(1000, Math.max(0, graceMs) / 6);
    await Promise.race([
      Promise.allSettled(remaining.map((a) => a.done)),
      sleep(Math.max(50, deadline - tail - Date.now())),
    ]);
    if (this.timer) clearInterval(this.timer);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.timer = null;
    this.leaseTimer = null;
    await this.leasing;
    // Every run handed back, also those whose turn already returned (and left the active map).
    const released = [...this.handedBack];
    if (released.length > 0) {
      await this.o.store
        .releaseRunLeases(this.o.ownerId, released)
        .catch((err) => this.o.log?.('warn', 'handing runs back failed', { error: errorMessage(err) }));
      this.o.log?.('info', `handed ${released.length} run(s) back at shutdown`);
    }
    await Promise.race([
      Promise.allSettled([...this.sessions.values()].map((s) => s.session.close())),
      sleep(Math.max(100, deadline - Date.now())),
    ]);
    this.sessions.clear();
  }

  private handBack(a: ActiveRun): void {
    if (a.released) return;
    a.released = true;
    this.handedBack.add(a.run.runId);
    a.abort.abort(new Error('the process is shutting down; the run is handed back'));
    for (const w of a.waiters) w.resolve(null);
  }

  get activeRuns(): number {
    return this.active.size;
  }

  /** Claims queued runs now (e.g. right after this process created one). */
  kick(): void {
    void this.claimLoop();
  }

  /** Aborts a run of this process at once (the command is already in the store). */
  cancelLocal(runId: string, requestedBy?: string): void {
    this.cancelled.add(runId);
    const a = this.active.get(runId);
    if (!a || a.abort.signal.aborted) return;
    if (a.pipeline) {
      a.pipeline.emit(harness({ harness: 'turn.cancel_requested', ...(requestedBy ? { requestedBy } : {}) }));
      a.cancelRecorded = true;
    }
    a.abort.abort(new Error('run.cancel'));
    for (const w of a.waiters) w.resolve(null);
  }

  /** Wakes the waiters of a run of this process (an answer was just recorded). */
  wakeAnswers(runId: string): void {
    const a = this.active.get(runId);
    if (a && a.waiters.size > 0) void this.checkAnswers(a);
  }

  private async tick(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      if (this.active.size > 0) await this.pollCancels();
      for (const a of this.active.values()) if (a.waiters.size > 0) await this.checkAnswers(a);
    } catch (err) {
      this.o.log?.('warn', 'executor poll failed', { error: errorMessage(err) });
    } finally {
      this.polling = false;
    }
    this.kick();
  }

  /** run.cancel requested through any process: a flag on the rows of the runs this process holds. */
  private async pollCancels(): Promise<void> {
    for (const held of await this.o.store.listHeldRuns(this.o.ownerId)) {
      if (held.cancelRequested && !this.cancelled.has(held.runId)) this.cancelLocal(held.runId);
    }
  }

  private leaseTick(): void {
    if (this.leasing) return;
    this.leasing = this.renewAndReclaim()
      .catch((err) => this.o.log?.('warn', 'renewing run leases failed', { error: errorMessage(err) }))
      .finally(() => {
        this.leasing = null;
      });
  }

  /** Renews this process's leases (a run it lost to another process is stopped), then reclaims dead ones. */
  private async renewAndReclaim(): Promise<void> {
    // Only runs launched before the renewal are judged by it: a claim committing meanwhile is not missing.
    const asked = [...this.active.values()];
    if (asked.length > 0) {
      const held = new Set(
        (await this.o.store.renewRunLeases(this.o.ownerId, this.o.leaseMs)).map((h) => h.runId),
      );
      for (const a of asked) {
        if (held.has(a.run.runId) || a.settling || a.released || a.lost) continue;
        a.lost = true;
        this.o.log?.('warn', `run ${a.run.runId} was taken over by another process; stopping it here`);
        a.abort.abort(new Error('the run lease was lost'));
        for (const w of a.waiters) w.resolve(null);
      }
    }
    if (!this.stopped) await this.reclaimExpired();
  }

  /**
   * Settles the runs whose lease expired (their process is gone): exactly one process takes each one
   * (takeExpiredRun), settles it as failed naming the lost process, and has it canonicalized.
   */
  private async reclaimExpired(): Promise<void> {
    for (const run of await this.o.store.listExpiredRuns()) {
      if (this.active.has(run.runId) || this.stopped) continue;
      const taken = await this.o.store.takeExpiredRun(run.runId, this.o.ownerId, this.o.leaseMs);
      if (!taken) continue;
      const error = engineLostError(taken.ownerId, taken.leaseUntil === RELEASED_LEASE);
      await settleLostRun(this.o.store, this.o.hub, taken, error);
      this.o.log?.('info', `settled run ${run.runId} of a process that is gone (${taken.ownerId ?? '?'})`);
      this.o.canonicalizer.kick();
    }
  }

  private async claimLoop(): Promise<void> {
    if (this.claiming || this.stopped) return;
    this.claiming = true;
    try {
      while (!this.stopped && this.active.size < this.o.maxConcurrentRuns) {
        const run = await this.o.store.claimQueuedRun(this.o.ownerId, this.o.leaseMs);
        if (!run) break;
        if (run.cancelRequestedAt !== null) this.cancelled.add(run.runId);
        this.launch(run);
      }
    } catch (err) {
      this.o.log?.('warn', 'claiming queued runs failed', { error: errorMessage(err) });
    } finally {
      this.claiming = false;
    }
  }

  private launch(run: RunRecord): void {
    const abort = new AbortController();
    const entry = { run, abort, waiters: new Set<Waiter>() } as ActiveRun;
    this.active.set(run.runId, entry);
    entry.done = this.execute(entry)
      .catch((err) =>
        this.o.log?.('error', `run ${run.runId} crashed the executor`, { error: errorMessage(err) }),
      )
      .finally(() => {
        this.active.delete(run.runId);
        this.kick();
      });
  }

  private async execute(a: ActiveRun): Promise<void> {
    const { store, hub } = this.o;
    const { run } = a;
    hub.publishSignal(run.threadId, {
      type: 'run.status',
      threadId: run.threadId,
      runId: run.runId,
      status: 'running',
      statusVersion: run.statusVersion,
    });
    const thread = await store.getThread(run.threadId);
    const driver = thread ? this.o.driverFor(thread.engine) : undefined;
    if (!thread || !driver) {
      const error = thread ? `no engine named "${thread.engine}" is configured` : 'thread not found';
      // Without a translator there is nothing to translate: the frames still tell what happened.
      await store.appendFrames(run.runId, [
        {
          receivedAt: new Date().toISOString(),
          frame: harness({ harness: 'engine.error', message: error, fatal: true }),
        },
        {
          receivedAt: new Date().toISOString(),
          frame: harness({ harness: 'turn.ended', outcome: 'failed', error }),
        },
      ]);
      await this.settle(run, 'failed', error);
      return;
    }
    const translation = new RunTranslation(driver.translator, {
      threadId: run.threadId,
      runId: run.runId,
      turnId: run.runId,
      provider: driver.provider,
    });
    const pipeline = new RunPipeline({
      store,
      hub,
      threadId: run.threadId,
      runId: run.runId,
      translation,
      materializer: new Materializer(store, this.o.artifactThresholdBytes),
      ...(this.o.audit ? { audit: this.o.audit } : {}),
      ...(this.o.log ? { log: this.o.log } : {}),
    });
    a.pipeline = pipeline;
    const model = typeof run.options.model === 'string' ? run.options.model : undefined;
    const mode = typeof run.options.mode === 'string' ? run.options.mode : undefined;
    pipeline.emit(
      harness({
        harness: 'turn.started',
        prompt: run.prompt,
        ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
        ...(model ? { model } : {}),
        ...(mode ? { mode } : {}),
      }),
    );

    let outcome: TurnOutcome;
    if (this.cancelled.has(run.runId)) {
      if (!a.cancelRecorded) pipeline.emit(harness({ harness: 'turn.cancel_requested' }));
      outcome = { outcome: 'cancelled', error: 'cancelled before it started' };
    } else {
      outcome = await this.runTurn(a, pipeline, thread, driver, { model, mode });
    }
    if (a.lost || a.released) {
      // Not ours to end: what the engine emitted is flushed, whoever reclaims the run writes its end.
      await pipeline.drain().catch(() => undefined);
      pipeline.close();
      return;
    }
    if (a.abort.signal.aborted && outcome.outcome === 'completed') outcome = { outcome: 'cancelled' };
    pipeline.emit(
      harness({
        harness: 'turn.ended',
        outcome: outcome.outcome,
        ...(outcome.error ? { error: outcome.error } : {}),
      }),
    );
    // A cancel is no failure: the run settles completed with outcome cancelled and no error.
    let error = outcome.outcome === 'cancelled' ? null : (outcome.error ?? null);
    try {
      await pipeline.drain();
    } catch (err) {
      error = errorMessage(err);
      outcome = { outcome: 'failed', error };
    }
    // Anything the engine emits from now on is late: stored as refused once sealed, never translated live.
    pipeline.close();
    if (a.lost || a.released) return;
    await this.settle(run, outcome.outcome === 'failed' ? 'failed' : 'completed', error, outcome.outcome);
  }

  private async runTurn(
    a: ActiveRun,
    pipeline: RunPipeline,
    thread: ThreadRecord,
    driver: EngineDriver,
    opts: { model: string | undefined; mode: string | undefined },
  ): Promise<TurnOutcome> {
    const { run } = a;
    let open: OpenSession;
    try {
      open = await this.openSession(thread, driver, (f, raw) => pipeline.emit(f, raw));
    } catch (err) {
      const message = `could not open the engine session: ${errorMessage(err)}`;
      pipeline.emit(harness({ harness: 'engine.error', message, fatal: true }));
      return { outcome: 'failed', error: message };
    }
    const io: TurnIO = {
      emit: (frame, raw) => pipeline.emit(frame, raw),
      signal: a.abort.signal,
      awaitApproval: async (approvalId) => {
        const answer = await this.awaitAnswer(a, 'approval', approvalId);
        const given: ApprovalAnswer = answer
          ? (answer.answer as unknown as ApprovalAnswer)
          : { outcome: 'cancelled' };
        pipeline.emit(harness({ harness: 'approval.answered', approvalId, ...given }));
        if (answer) await this.o.store.markAnswerDelivered(answer.answerId);
        return given;
      },
      awaitQuestion: async (questionId) => {
        const answer = await this.awaitAnswer(a, 'question', questionId);
        const given: QuestionAnswer = answer
          ? (answer.answer as unknown as QuestionAnswer)
          : { outcome: 'cancelled' };
        pipeline.emit(harness({ harness: 'question.answered', questionId, ...given }));
        if (answer) await this.o.store.markAnswerDelivered(answer.answerId);
        return given;
      },
    };
    try {
      return await open.session.runTurn(
        {
          threadId: run.threadId,
          runId: run.runId,
          turnId: run.runId,
          prompt: run.prompt,
          ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
          ...(opts.model ? { model: opts.model } : {}),
          ...(opts.mode ? { mode: opts.mode } : {}),
        },
        io,
      );
    } catch (err) {
      // An engine that throws is presumed broken: drop the session so the next run reopens it.
      const message = `the engine failed: ${errorMessage(err)}`;
      pipeline.emit(harness({ harness: 'engine.error', message, fatal: true }));
      this.sessions.delete(thread.threadId);
      await open.session.close().catch(() => undefined);
      return { outcome: 'failed', error: message };
    }
  }

  private async openSession(
    thread: ThreadRecord,
    driver: EngineDriver,
    emit: (frame: JsonValue, raw?: RawFrame) => void,
  ): Promise<OpenSession> {
    const cached = this.sessions.get(thread.threadId);
    if (cached && cached.driver === driver) {
      if (cached.session.isAlive?.() !== false) return cached;
      // The engine died between turns: reopen from the persisted binding (load/resume, new generation)
      // so this run goes on instead of failing once.
      this.sessions.delete(thread.threadId);
      void cached.session.close().catch(() => undefined);
      emit(
        harness({
          harness: 'engine.error',
          message: 'the engine process exited after the previous run; a new one continues the session',
          fatal: false,
        }),
      );
    }
    const inFlight = this.opening.get(thread.threadId);
    if (inFlight) return inFlight;
    const opening = (async () => {
      const previous = await this.o.store.getSession(thread.threadId);
      const reattach = previous && previous.engine === driver.name && previous.provider === driver.provider;
      const previousBinding: SessionBinding | undefined = reattach
        ? {
            provider: previous.provider,
            nativeSessionId: previous.nativeSessionId,
            runtimeBinding: previous.runtimeBinding,
            protocolVersion: previous.protocolVersion,
            capabilities: previous.capabilities,
          }
        : undefined;
      const session = await driver.openSession({
        threadId: thread.threadId,
        workDir: this.o.workDirFor(thread),
        ...(previousBinding ? { previous: previousBinding } : {}),
        // A new process means a new runtime binding, so the store will bump the generation on bind.
        generation: (previous?.generation ?? 0) + 1,
        emit,
      });
      const record = await this.o.store.bindSession({
        threadId: thread.threadId,
        engine: driver.name,
        ...session.binding,
      });
      const open: OpenSession = { session, driver, generation: record.generation };
      this.sessions.set(thread.threadId, open);
      return open;
    })();
    this.opening.set(thread.threadId, opening);
    try {
      return await opening;
    } finally {
      this.opening.delete(thread.threadId);
    }
  }

  private awaitAnswer(
    a: ActiveRun,
    kind: 'approval' | 'question',
    targetId: string,
  ): Promise<InteractionAnswerRecord | null> {
    if (a.abort.signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        kind,
        targetId,
        resolve: (answer) => {
          if (!a.waiters.delete(waiter)) return;
          if (waiter.timer) clearTimeout(waiter.timer);
          resolve(answer);
        },
      };
      a.waiters.add(waiter);
      const timeoutMs = this.o.approvalTimeoutMs;
      if (timeoutMs > 0) {
        waiter.timer = setTimeout(() => void this.expire(a, waiter, timeoutMs), timeoutMs);
        waiter.timer.unref();
      }
      void this.checkAnswers(a);
    });
  }

  /**
   * Nobody answered in time: the request is cancelled by `system`, recorded like any answer so that every
   * process agrees and a late answer is refused (conflict) instead of reaching an engine that moved on. An
   * answer recorded first (here or by another process) wins the race and is delivered instead. The run then
   * goes on as its engine goes on after a cancelled request (the built-in engine: the call is not run).
   */
  private async expire(a: ActiveRun, waiter: Waiter, timeoutMs: number): Promise<void> {
    if (!a.waiters.has(waiter)) return;
    const answer: ApprovalAnswer | QuestionAnswer = { outcome: 'cancelled', answeredBy: SYSTEM_ANSWERER };
    try {
      const record = await this.o.store.recordAnswer({
        threadId: a.run.threadId,
        runId: a.run.runId,
        kind: waiter.kind,
        targetId: waiter.targetId,
        answer: answer as unknown as JsonObject,
      });
      this.o.log?.(
        'info',
        `${waiter.kind} ${waiter.targetId} of run ${a.run.runId} was not answered within ${timeoutMs} ms; cancelled by system`,
      );
      waiter.resolve(record);
    } catch (err) {
      // Answered meanwhile (conflict): that answer is delivered. Else the store failed: try again shortly.
      if (err instanceof StoreError && err.code === 'conflict') await this.checkAnswers(a);
      else {
        this.o.log?.('warn', 'cancelling an unanswered request failed', { error: errorMessage(err) });
        waiter.timer = setTimeout(() => void this.expire(a, waiter, timeoutMs), 1000);
        waiter.timer.unref();
      }
    }
  }

  private async checkAnswers(a: ActiveRun): Promise<void> {
    try {
      const answers = await this.o.store.pendingAnswers(a.run.runId);
      for (const w of [...a.waiters]) {
        const found = answers.find((x) => x.kind === w.kind && x.targetId === w.targetId);
        if (found) w.resolve(found);
      }
    } catch (err) {
      this.o.log?.('warn', 'reading pending answers failed', { error: errorMessage(err) });
    }
  }

  private async settle(
    run: RunRecord,
    status: 'completed' | 'failed',
    error: string | null,
    outcome: RunOutcome = status,
  ): Promise<void> {
    const entry = this.active.get(run.runId);
    if (entry) entry.settling = true;
    const settled = await this.o.store.finalizeRun(run.runId, status, error, outcome);
    this.o.hub.publishSignal(run.threadId, {
      type: 'run.status',
      threadId: run.threadId,
      runId: run.runId,
      status: settled.status,
      statusVersion: settled.statusVersion,
    });
    this.o.canonicalizer.kick();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
