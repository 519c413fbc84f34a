import {
  compact,
  engineErrorPayload,
  engineExitedError,
  type HarnessHandlers,
  turnStartedPayload,
  warnFrameDropped,
} from '@agentlane/engine-kit';
import { resolveApproval } from './approvals.js';
import { type AcpTranslatorConfig, emitSessionStarted, flushPendingSession } from './session.js';
import type { Step } from './step.js';
import { closeText } from './text.js';
import { completeTurn, openTurn } from './turn.js';

/** What the harness's own frames (session.bound, turn.*, approval.answered, engine.*) mean for an ACP run. */
export function acpHarnessHandlers(config: AcpTranslatorConfig): HarnessHandlers<Step> {
  return {
    'session.bound': (step, frame) =>
      emitSessionStarted(
        step,
        config.provider,
        {
          origin: frame.origin,
          generation: frame.generation,
          capabilities: frame.capabilities,
          ...(frame.nativeSessionId ? { nativeSessionId: frame.nativeSessionId } : {}),
          ...(frame.agent ? { agent: frame.agent } : {}),
          ...(frame.cwd ? { cwd: frame.cwd } : {}),
        },
        config.observed,
      ),
    'turn.started': (step, frame) => openTurn(step, turnStartedPayload(frame)),
    'approval.answered': (step, frame) =>
      resolveApproval(
        step,
        frame.approvalId,
        compact({ outcome: frame.outcome, optionId: frame.optionId, answeredBy: frame.answeredBy }),
      ),
    // agentlane offers no elicitation to ACP agents yet, so no question was asked: nothing to resolve.
    'question.answered': () => {},
    'turn.cancel_requested': (step) => {
      step.state.cancelRequested = true;
    },
    'engine.exited': (step, frame) => {
      closeText(step);
      step.state.fatalReported = true;
      step.emitHere({ kind: 'harness.error', payload: engineExitedError(frame, 'the engine process') });
    },
    'frame.dropped': (step, frame) => warnFrameDropped(step, frame),
    'engine.error': (step, frame) => {
      // The lane reports the failure of a turn whose engine died; engine.exited already said it.
      if (frame.fatal && step.state.fatalReported) return;
      if (frame.fatal) step.state.fatalReported = true;
      step.emitHere({ kind: 'harness.error', payload: engineErrorPayload(frame) });
    },
    'turn.ended': (step, frame) => {
      flushPendingSession(step, config);
      if (frame.outcome === 'cancelled') completeTurn(step, 'cancelled');
      else if (frame.outcome === 'failed') completeTurn(step, 'error', frame.error);
      else completeTurn(step, 'end_turn');
    },
  };
}
