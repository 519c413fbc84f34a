import type { JsonValue } from '@agentlane/contract';
import type { EngineDriver, RawFrame, SessionBinding } from '@agentlane/engine-kit';
import type { ThreadRecord } from '@agentlane/store';
import type { ExecutorStore } from './executor-state.js';
import { harness, type OpenSession, sleep } from './executor-state.js';

/**
 * The engine sessions of one process, one per thread: opened once (one open at a time per thread), reused by
 * the thread's next runs, reopened from the persisted binding when the engine died between turns.
 */
export class EngineSessions {
  private readonly sessions = new Map<string, OpenSession>();
  /** Threads whose session is being opened: one open at a time per thread. */
  private readonly opening = new Map<string, Promise<OpenSession>>();

  constructor(private readonly o: { store: ExecutorStore; workDirFor: (thread: ThreadRecord) => string }) {}

  async open(
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

  /** Forgets a thread's session (its engine failed) so the next run reopens it. */
  drop(threadId: string): void {
    this.sessions.delete(threadId);
  }

  /** Closes every session, waiting at most until `deadline` (epoch ms, at least 100 ms). */
  async closeAll(deadline: number): Promise<void> {
    await Promise.race([
      Promise.allSettled([...this.sessions.values()].map((s) => s.session.close())),
      sleep(Math.max(100, deadline - Date.now())),
    ]);
    this.sessions.clear();
  }
}
