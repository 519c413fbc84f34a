import type { JsonObject } from '@agentlane/contract';
import type { ApprovalAnswer, QuestionAnswer } from '@agentlane/engine-kit';
import { type InteractionAnswerRecord, StoreError } from '@agentlane/store';
import type { ActiveRun, ExecutorStore, Log, Waiter } from './executor-state.js';
import { SYSTEM_ANSWERER } from './recovery.js';
import { errorMessage } from './run-translation.js';

// A turn waiting on an approval or a question: the answer comes from the store (recorded through the API by
// any process), or `system` cancels the request when nobody answered in time.

export interface AnswerDeps {
  store: ExecutorStore;
  /** An approval or question unanswered this long is cancelled by `system` (0: never). */
  approvalTimeoutMs: number;
  log?: Log;
}

/** Resolves with the answer to the request, or null when the run is stopped or cancelled first. */
export function awaitAnswer(
  deps: AnswerDeps,
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
    const timeoutMs = deps.approvalTimeoutMs;
    if (timeoutMs > 0) {
      waiter.timer = setTimeout(() => void expire(deps, a, waiter, timeoutMs), timeoutMs);
      waiter.timer.unref();
    }
    void checkAnswers(deps, a);
  });
}

/**
 * Nobody answered in time: the request is cancelled by `system`, recorded like any answer so that every
 * process agrees and a late answer is refused (conflict) instead of reaching an engine that moved on. An
 * answer recorded first (here or by another process) wins the race and is delivered instead. The run then
 * goes on as its engine goes on after a cancelled request (the built-in engine: the call is not run).
 */
async function expire(deps: AnswerDeps, a: ActiveRun, waiter: Waiter, timeoutMs: number): Promise<void> {
  if (!a.waiters.has(waiter)) return;
  const answer: ApprovalAnswer | QuestionAnswer = { outcome: 'cancelled', answeredBy: SYSTEM_ANSWERER };
  try {
    const record = await deps.store.recordAnswer({
      threadId: a.run.threadId,
      runId: a.run.runId,
      kind: waiter.kind,
      targetId: waiter.targetId,
      answer: answer as unknown as JsonObject,
    });
    deps.log?.(
      'info',
      `${waiter.kind} ${waiter.targetId} of run ${a.run.runId} was not answered within ${timeoutMs} ms; cancelled by system`,
    );
    waiter.resolve(record);
  } catch (err) {
    // Answered meanwhile (conflict): that answer is delivered. Else the store failed: try again shortly.
    if (err instanceof StoreError && err.code === 'conflict') await checkAnswers(deps, a);
    else {
      deps.log?.('warn', 'cancelling an unanswered request failed', { error: errorMessage(err) });
      waiter.timer = setTimeout(() => void expire(deps, a, waiter, timeoutMs), 1000);
      waiter.timer.unref();
    }
  }
}

export async function checkAnswers(deps: AnswerDeps, a: ActiveRun): Promise<void> {
  try {
    const answers = await deps.store.pendingAnswers(a.run.runId);
    for (const w of [...a.waiters]) {
      const found = answers.find((x) => x.kind === w.kind && x.targetId === w.targetId);
      if (found) w.resolve(found);
    }
  } catch (err) {
    deps.log?.('warn', 'reading pending answers failed', { error: errorMessage(err) });
  }
}
