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

export interface TurnDeps extends AnswerDeps {
  sessions: EngineSessions;
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
  const io: TurnIO = {
    emit: (frame, raw) => pipeline.emit(frame, raw),
    signal: a.abort.signal,
    awaitApproval: async (approvalId) => {
      const answer = await awaitAnswer(deps, a, 'approval', approvalId);
      const given: ApprovalAnswer = answer
        ? (answer.answer as unknown as ApprovalAnswer)
        : { outcome: 'cancelled' };
      pipeline.emit(harness({ harness: 'approval.answered', approvalId, ...given }));
      if (answer) await deps.store.markAnswerDelivered(answer.answerId);
      return given;
    },
    awaitQuestion: async (questionId) => {
      const answer = await awaitAnswer(deps, a, 'question', questionId);
      const given: QuestionAnswer = answer
        ? (answer.answer as unknown as QuestionAnswer)
        : { outcome: 'cancelled' };
      pipeline.emit(harness({ harness: 'question.answered', questionId, ...given }));
      if (answer) await deps.store.markAnswerDelivered(answer.answerId);
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
    deps.sessions.drop(thread.threadId);
    await open.session.close().catch(() => undefined);
    return { outcome: 'failed', error: message };
  }
}
