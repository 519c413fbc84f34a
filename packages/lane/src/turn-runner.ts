import type {
  ApprovalAnswer,
  EngineDriver,
  QuestionAnswer,
  TurnIO,
  TurnOutcome,
} from '@agentlane/engine-kit';
import type { ThreadRecord } from '@agentlane/store';
import { type AnswerDeps, awaitAnswer } from './answers.js';
import type { EngineSessions } from './engine-sessions.js';
import { type ActiveRun, harness, type OpenSession } from './executor-state.js';
import type { RunPipeline } from './run-pipeline.js';
import { errorMessage } from './run-translation.js';
import { IDLE, turnIdleWatch } from './turn-idle.js';

export interface TurnDeps extends AnswerDeps {
  sessions: EngineSessions;
  /** How long a stopped turn is waited for before its engine session is closed and the turn abandoned. */
  cancelGraceMs: number;
  /** A turn whose engine emits nothing this long (nobody being asked) fails (0: never; turn-idle.ts). */
  turnIdleMs: number;
}

/**
 * Runs one turn on the thread's engine session with a TurnIO backed by the store: frames go to the run's
 * pipeline, answers recorded through the API reach awaitApproval/awaitQuestion. An engine that fails to open
 * or throws ends the turn failed (never the executor).
 */
export async function runTurn(
  deps: TurnDeps,
  a: ActiveRun,
  pipeline: RunPipeline,
  thread: ThreadRecord,
  driver: EngineDriver,
  opts: { model: string | undefined; mode: string | undefined },
): Promise<TurnOutcome> {
  const { run } = a;
  let open: OpenSession;
  try {
    open = await deps.sessions.open(thread, driver, (f, raw) => pipeline.emit(f, raw));
  } catch (err) {
    const message = `could not open the engine session: ${errorMessage(err)}`;
    pipeline.emit(harness({ harness: 'engine.error', message, fatal: true }));
    return { outcome: 'failed', error: message };
  }
  // Once the turn is abandoned (it ignored a stop, or went silent), what it still emits is no part of the run.
  let abandoned = false;
  const idle = turnIdleWatch(deps.turnIdleMs);
  const io: TurnIO = {
    emit: (frame, raw) => {
      if (abandoned) return;
      idle.touch();
      pipeline.emit(frame, raw);
    },
    stored: () => pipeline.drain(),
    signal: a.abort.signal,
    awaitApproval: async (approvalId) => {
      const answer = await idle.asking(awaitAnswer(deps, a, 'approval', approvalId));
      const given: ApprovalAnswer = answer
        ? (answer.answer as unknown as ApprovalAnswer)
        : { outcome: 'cancelled' };
      pipeline.emit(harness({ harness: 'approval.answered', approvalId, ...given }));
      if (answer) await deps.store.markAnswerDelivered(answer.answerId);
      return given;
    },
    awaitQuestion: async (questionId) => {
      const answer = await idle.asking(awaitAnswer(deps, a, 'question', questionId));
      const given: QuestionAnswer = answer
        ? (answer.answer as unknown as QuestionAnswer)
        : { outcome: 'cancelled' };
      pipeline.emit(harness({ harness: 'question.answered', questionId, ...given }));
      if (answer) await deps.store.markAnswerDelivered(answer.answerId);
      return given;
    },
  };
  try {
    const turn = open.session.runTurn(
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
    const result = await Promise.race([
      untilAbandoned(turn, a.abort.signal, deps.cancelGraceMs),
      idle.expired,
    ]);
    if (result === IDLE) {
      abandoned = true;
      const message = `the engine sent nothing for ${deps.turnIdleMs} ms and did not end its turn; its session was closed (engine process stopped)`;
      pipeline.emit(harness({ harness: 'engine.error', message, fatal: true }));
      deps.log?.('warn', `run ${run.runId}: ${message}`);
      await deps.sessions.close(open);
      return { outcome: 'failed', error: message };
    }
    if (result !== ABANDONED) return result;
    abandoned = true;
    // The engine ignored the stop: its session is closed (the process ended) and the run is not held by it.
    const why = errorMessage(a.abort.signal.reason ?? 'stopped');
    const message = `the engine did not end the turn within ${deps.cancelGraceMs} ms of ${why}; its session was closed (engine process stopped)`;
    pipeline.emit(harness({ harness: 'engine.error', message, fatal: false }));
    deps.log?.('warn', `run ${run.runId}: ${message}`);
    await deps.sessions.close(open);
    return { outcome: 'cancelled' };
  } catch (err) {
    // An engine that throws is presumed broken: drop the session so the next run reopens it.
    const message = `the engine failed: ${errorMessage(err)}`;
    pipeline.emit(harness({ harness: 'engine.error', message, fatal: true }));
    await deps.sessions.close(open);
    return { outcome: 'failed', error: message };
  } finally {
    idle.stop();
    deps.sessions.release(open);
  }
}

const ABANDONED = Symbol('abandoned');

/**
 * The turn's outcome, or ABANDONED once `graceMs` passed after `signal` aborted without the turn returning.
 * An abandoned turn may still return or throw later: nothing waits for it any more.
 */
async function untilAbandoned<T>(
  turn: Promise<T>,
  signal: AbortSignal,
  graceMs: number,
): Promise<T | typeof ABANDONED> {
  turn.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const abandoned = new Promise<typeof ABANDONED>((resolve) => {
    onAbort = () => {
      timer = setTimeout(() => resolve(ABANDONED), Math.max(0, graceMs));
      timer.unref();
    };
  });
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.race([turn, abandoned]);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}
