import type { JsonValue } from '@agentlane/contract';
import type { EngineDriver, RawFrame, SessionBinding } from '@agentlane/engine-kit';
import { neverBound, type ThreadRecord } from '@agentlane/store';
import type { ExecutorStore } from './executor-state.js';
import { harness, type OpenSession, sleep } from './executor-state.js';

type Emit = (frame: JsonValue, raw?: RawFrame) => void;

/** Frames a session emits between turns that wait for the thread's next run: at most this many... */
export const BETWEEN_TURNS_MAX_FRAMES = 1000;
/** ...and at most this many bytes (the raw bytes when the engine handed them over, else the frame's JSON). */
export const BETWEEN_TURNS_MAX_BYTES = 4 * 1024 * 1024;

/** How long closing one engine session is waited for (a session whose close hangs is forgotten anyway). */
const CLOSE_WAIT_MS = 5_000;

function frameBytes(frame: JsonValue, raw: RawFrame | undefined): number {
  if (typeof raw === 'string') return Buffer.byteLength(raw);
  if (raw) return raw.byteLength;
  return Buffer.byteLength(JSON.stringify(frame) ?? '');
}

/**
 * Where the emit a session got at open time (OpenSessionOptions.emit) delivers: into the run that uses the
 * session, and between runs into a bounded buffer the next run receives first (the rest is dropped and
 * counted; the next run's source lane says how many). Once the session is closed, its frames go nowhere.
 */
export class FrameRouter {
  private sink: Emit | null;
  private buffered: { frame: JsonValue; raw?: RawFrame }[] = [];
  private bytes = 0;
  private dropped = 0;
  private droppedBytes = 0;
  private closed = false;

  constructor(
    sink: Emit,
    private readonly limits = { frames: BETWEEN_TURNS_MAX_FRAMES, bytes: BETWEEN_TURNS_MAX_BYTES },
  ) {
    this.sink = sink;
  }

  readonly emit: Emit = (frame, raw) => {
    if (this.closed) return;
    if (this.sink) {
      this.sink(frame, raw);
      return;
    }
    if (this.buffered.length >= this.limits.frames) {
      this.dropped++;
      this.droppedBytes += frameBytes(frame, raw);
      return;
    }
    const size = frameBytes(frame, raw);
    if (this.bytes + size > this.limits.bytes) {
      this.dropped++;
      this.droppedBytes += size;
      return;
    }
    this.buffered.push(raw === undefined ? { frame } : { frame, raw });
    this.bytes += size;
  };

  /** A run uses the session: what waited goes into its source lane first, then a word on what was dropped. */
  attach(sink: Emit): void {
    const waiting = this.buffered;
    this.buffered = [];
    this.bytes = 0;
    for (const f of waiting) sink(f.frame, f.raw);
    if (this.dropped > 0) {
      sink(
        harness({
          harness: 'engine.error',
          message: `the engine sent ${this.dropped} more frame(s) (${this.droppedBytes} bytes) between turns than are kept (${this.limits.frames} frames / ${this.limits.bytes} bytes); they were dropped`,
          fatal: false,
          detail: { droppedFrames: this.dropped, droppedBytes: this.droppedBytes },
        }),
      );
      this.dropped = 0;
      this.droppedBytes = 0;
    }
    this.sink = sink;
  }

  /** The run is over: frames wait for the next one. */
  detach(): void {
    this.sink = null;
  }

  close(): void {
    this.closed = true;
    this.sink = null;
    this.buffered = [];
    this.bytes = 0;
  }
}

/**
 * The engine sessions of one process, one per thread: opened once (one open at a time per thread), reused by
 * the thread's next runs, reopened from the persisted binding when the engine died between turns, closed
 * when idle too long or when asked (a deleted session).
 */
export class EngineSessions {
  private readonly sessions = new Map<string, OpenSession>();
  /** Threads whose session is being opened: one open at a time per thread. */
  private readonly opening = new Map<string, Promise<OpenSession>>();

  constructor(
    private readonly o: {
      store: ExecutorStore;
      workDirFor: (thread: ThreadRecord) => string;
      log?: (level: 'info' | 'warn' | 'error', message: string, detail?: unknown) => void;
    },
  ) {}

  /**
   * The thread's session for a run, which uses it until `release`: frames the engine emits outside its turns
   * through the open-time emit go to `emit` meanwhile.
   */
  async open(thread: ThreadRecord, driver: EngineDriver, emit: Emit): Promise<OpenSession> {
    const cached = this.sessions.get(thread.threadId);
    if (cached && cached.driver === driver) {
      if (cached.session.isAlive?.() !== false) return this.use(cached, emit);
      // The engine died between turns: reopen from the persisted binding (load/resume, new generation)
      // so this run goes on instead of failing once.
      void this.close(cached);
      emit(
        harness({
          harness: 'engine.error',
          message: 'the engine process exited after the previous run; a new one continues the session',
          fatal: false,
        }),
      );
    }
    const inFlight = this.opening.get(thread.threadId);
    if (inFlight) return this.use(await inFlight, emit);
    const opening = this.start(thread, driver, emit);
    this.opening.set(thread.threadId, opening);
    try {
      const open = await opening;
      open.users++;
      return open;
    } finally {
      this.opening.delete(thread.threadId);
    }
  }

  private use(open: OpenSession, emit: Emit): OpenSession {
    open.users++;
    open.router.attach(emit);
    return open;
  }

  private async start(thread: ThreadRecord, driver: EngineDriver, emit: Emit): Promise<OpenSession> {
    const stored = await this.o.store.getSession(thread.threadId);
    // The row written when the session was created, before any engine ran, is no session to resume.
    const previous = stored && !neverBound(stored) ? stored : null;
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
    const router = new FrameRouter(emit);
    let session: OpenSession['session'];
    try {
      session = await driver.openSession({
        threadId: thread.threadId,
        workDir: this.o.workDirFor(thread),
        ...(previousBinding ? { previous: previousBinding } : {}),
        // A new process means a new runtime binding, so the store will bump the generation on bind.
        generation: (previous?.generation ?? 0) + 1,
        emit: router.emit,
      });
    } catch (err) {
      router.close();
      throw err;
    }
    const record = await this.o.store.bindSession({
      threadId: thread.threadId,
      engine: driver.name,
      ...session.binding,
    });
    const open: OpenSession = {
      threadId: thread.threadId,
      session,
      driver,
      generation: record.generation,
      router,
      users: 0,
      idleSince: Date.now(),
    };
    this.sessions.set(thread.threadId, open);
    return open;
  }

  /** The run is done with the session: its frames wait for the next run; a close asked meanwhile happens now. */
  release(open: OpenSession): void {
    open.users = Math.max(0, open.users - 1);
    if (open.users > 0) return;
    open.router.detach();
    open.idleSince = Date.now();
    if (open.closeWhenIdle) void this.close(open);
  }

  /** Forgets a session (its engine failed) so the thread's next run reopens it; a newer session is kept. */
  drop(open: OpenSession): void {
    if (this.sessions.get(open.threadId) === open) this.sessions.delete(open.threadId);
    open.router.close();
  }

  /** Forgets the session and closes it (ends the engine process), waiting at most CLOSE_WAIT_MS. */
  async close(open: OpenSession): Promise<void> {
    this.drop(open);
    await Promise.race([
      open.session.close().catch((err) =>
        this.o.log?.('warn', `closing the engine session of thread ${open.threadId} failed`, {
          error: err instanceof Error ? err.message : String(err),
        }),
      ),
      sleep(CLOSE_WAIT_MS),
    ]);
  }

  /**
   * Closes a thread's engine session (e.g. its session was deleted): at once when no run uses it, else as
   * soon as the run using it ends. False when the thread has no open session here.
   */
  async closeThread(threadId: string): Promise<boolean> {
    await this.opening.get(threadId)?.catch(() => undefined);
    const open = this.sessions.get(threadId);
    if (!open) return false;
    if (open.users > 0) open.closeWhenIdle = true;
    else await this.close(open);
    return true;
  }

  /** Closes the sessions no run has used for `idleMs` (0: never); returns how many. */
  reapIdle(idleMs: number, now = Date.now()): number {
    if (!(idleMs > 0)) return 0;
    let closed = 0;
    for (const open of [...this.sessions.values()]) {
      if (open.users > 0 || now - open.idleSince < idleMs) continue;
      this.o.log?.('info', `closing the engine session of thread ${open.threadId}: idle for ${idleMs} ms`);
      void this.close(open);
      closed++;
    }
    return closed;
  }

  /** Closes every session, waiting at most until `deadline` (epoch ms, at least 100 ms). */
  async closeAll(deadline: number): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const open of all) open.router.close();
    await Promise.race([
      Promise.allSettled(all.map((s) => s.session.close())),
      sleep(Math.max(100, deadline - Date.now())),
    ]);
  }
}
