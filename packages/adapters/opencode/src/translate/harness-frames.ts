import {
  engineErrorPayload,
  engineExitedError,
  type HarnessHandlers,
  openTurnOnce,
  turnStartedPayload,
  warnFrameDropped,
} from '@agentlane/engine-kit';
import { OPENCODE_CAPABILITIES } from './capabilities.js';
import { resolveApproval, resolveQuestionFromHarness } from './interactions.js';
import { completeTurn } from './sessions.js';
import type { Step } from './step.js';

/** Frames agentlane itself wrote into the source lane (prompt, answers, cancel, engine death). */
export const harnessHandlers: HarnessHandlers<Step> = {
  'session.bound': (out, frame) => {
    const state = out.state;
    if (frame.nativeSessionId) state.rootSessionId = frame.nativeSessionId;
    if (frame.cwd) state.directory = frame.cwd;
    if (state.sessionStarted) return;
    state.sessionStarted = true;
    const payload = {
      provider: 'opencode',
      origin: frame.origin,
      generation: frame.generation,
      capabilities: frame.capabilities ?? OPENCODE_CAPABILITIES,
      ...(frame.nativeSessionId ? { nativeSessionId: frame.nativeSessionId } : {}),
      ...(frame.agent ? { agent: frame.agent } : {}),
      ...(frame.cwd ? { cwd: frame.cwd } : {}),
    };
    out.emit('session.started', { kind: 'session.started', payload });
  },
  'turn.started': (out, frame) => openTurnOnce(out, turnStartedPayload(frame)),
  'approval.answered': (out, frame) => resolveApproval(out, frame.approvalId, frame),
  'question.answered': (out, frame) => resolveQuestionFromHarness(out, frame.questionId, frame),
  'turn.cancel_requested': (out) => {
    out.state.cancelRequested = true;
  },
  'engine.exited': (out, frame) => {
    if (out.state.turn === 'closed') return;
    const payload = engineExitedError(frame, 'opencode');
    out.state.errorMessage = payload.message;
    out.emitHere({ kind: 'harness.error', payload });
  },
  'frame.dropped': (out, frame) => warnFrameDropped(out, frame),
  'engine.error': (out, frame) => {
    if (frame.fatal) out.state.errorMessage = frame.message;
    out.emitHere({ kind: 'harness.error', payload: engineErrorPayload(frame) });
  },
  'turn.ended': (out, frame) => {
    if (frame.outcome === 'cancelled') completeTurn(out, 'cancelled');
    else if (frame.outcome === 'failed') completeTurn(out, 'error');
    else if (out.state.turn === 'open') completeTurn(out, null);
  },
};
