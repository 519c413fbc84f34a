import type { StopReason } from '@agentlane/contract';
import {
  engineErrorPayload,
  engineExitedError,
  type HarnessHandlers,
  idGet,
  turnStartedPayload,
  warnFrameDropped,
} from '@agentlane/engine-kit';
import type { LimitCode } from '@agentlane/runtime';
import { closeOpen, endOpenTools } from './close.js';
import { noteAnswer } from './cutoff-rows.js';
import { BUILTIN_PROVIDER } from './provider-id.js';
import { inScope } from './scope.js';
import { APPROVAL_OPTIONS, LIMIT_STOP, markAnswered, nextCount, type Step, track } from './state.js';

/** Frames agentlane wrote into the source lane: the session, the prompt, answers, engine failures, the end. */
export const HARNESS: HarnessHandlers<Step> = {
  'session.bound': (step, f) =>
    step.emit('session.started', {
      kind: 'session.started',
      payload: {
        provider: BUILTIN_PROVIDER,
        origin: f.origin,
        generation: f.generation,
        capabilities: f.capabilities,
        ...(f.nativeSessionId !== undefined ? { nativeSessionId: f.nativeSessionId } : {}),
        ...(f.cwd !== undefined ? { cwd: f.cwd } : {}),
        ...(f.agent ? { agent: f.agent } : {}),
      },
    }),
  'turn.started': (step, f) => {
    step.state = { ...step.state, turnStartedAt: step.receivedAt };
    step.emit('turn.started', { kind: 'turn.started', payload: turnStartedPayload(f) });
  },
  'approval.answered': (step, f) => {
    const where = idGet(step.state.scoped, `approval:${f.approvalId}`);
    if (where) {
      inScope(step, where, (sub) => HARNESS['approval.answered'](sub, f));
      return;
    }
    markAnswered(step, f.approvalId);
    track(step, (t) => noteAnswer(t, f.approvalId, f));
    const option = APPROVAL_OPTIONS.find((o) => o.optionId === f.optionId);
    const selected = f.outcome === 'selected';
    step.emit(`approval.resolved:${f.approvalId}`, {
      kind: 'approval.resolved',
      payload: {
        approvalId: f.approvalId,
        outcome: selected ? 'selected' : 'cancelled',
        ...(selected && f.optionId !== undefined ? { optionId: f.optionId } : {}),
        ...(selected && option ? { decision: option.kind } : {}),
        ...(f.answeredBy !== undefined ? { answeredBy: f.answeredBy } : {}),
        answeredAt: step.receivedAt,
      },
    });
  },
  'question.answered': (step, f) => {
    const where = idGet(step.state.scoped, `question:${f.questionId}`);
    if (where) {
      inScope(step, where, (sub) => HARNESS['question.answered'](sub, f));
      return;
    }
    markAnswered(step, f.questionId);
    const answered = f.outcome === 'answered';
    step.emit(`question.resolved:${f.questionId}`, {
      kind: 'question.resolved',
      payload: {
        questionId: f.questionId,
        outcome: f.outcome,
        ...(answered
          ? {
              answer: {
                choiceIds: (f.choiceIds ?? []).filter((c): c is string => typeof c === 'string'),
                ...(f.text !== undefined ? { text: f.text } : {}),
              },
            }
          : {}),
        ...(f.answeredBy !== undefined ? { answeredBy: f.answeredBy } : {}),
        answeredAt: step.receivedAt,
      },
    });
  },
  'turn.cancel_requested': () => {},
  'engine.exited': (step, f) =>
    step.emit(`error:${nextCount(step)}`, {
      kind: 'harness.error',
      payload: engineExitedError(f, 'the built-in engine'),
    }),
  'frame.dropped': (step, f) => warnFrameDropped(step, f),
  'engine.error': (step, f) =>
    step.emit(`error:${nextCount(step)}`, { kind: 'harness.error', payload: engineErrorPayload(f) }),
  'turn.ended': (step, f) => turnEnded(step, f.outcome, f.error),
};

/** The end of the turn: what is still open is closed, then turn.completed with the stop reason. */
function turnEnded(step: Step, outcome: string, error: string | undefined): void {
  if (outcome !== 'completed')
    endOpenTools(step, outcome === 'cancelled' ? 'cancelled' : 'failed', error || outcome);
  closeOpen(step);
  const limit = step.state.stopReason;
  const stopReason: StopReason =
    outcome === 'cancelled'
      ? 'cancelled'
      : outcome === 'failed'
        ? 'error'
        : limit && Object.hasOwn(LIMIT_STOP, limit)
          ? LIMIT_STOP[limit as LimitCode]
          : 'end_turn';
  const started = step.state.turnStartedAt;
  step.state = { ...step.state, ended: true };
  step.emit('turn.completed', {
    kind: 'turn.completed',
    payload: {
      stopReason,
      ...(step.state.stopReason && stopReason !== 'end_turn' ? { rawStopReason: step.state.stopReason } : {}),
      ...(started ? { durationMs: Math.max(0, Date.parse(step.receivedAt) - Date.parse(started)) } : {}),
    },
  });
}
