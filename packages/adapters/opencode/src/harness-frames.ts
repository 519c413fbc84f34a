import type { JsonObject } from '@agentlane/contract';
import type { HarnessFrame } from '@agentlane/engine-kit';
import { OPENCODE_CAPABILITIES } from './capabilities';
import type { StepOutput } from './emit';
import { resolveApproval, resolveQuestionFromHarness } from './interactions';
import { completeTurn, openTurn } from './sessions';

/** Frames agentlane itself wrote into the source lane (prompt, answers, cancel, engine death). */
export function onHarnessFrame(out: StepOutput, frame: HarnessFrame & JsonObject): void {
  const state = out.state;
  switch (frame.harness) {
    case 'session.bound': {
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
      return;
    }
    case 'turn.started':
      openTurn(out, {
        prompt: frame.prompt,
        parentRunId: frame.parentRunId,
        model: frame.model,
        mode: frame.mode,
      });
      return;
    case 'approval.answered':
      resolveApproval(out, frame.approvalId, frame);
      return;
    case 'question.answered':
      resolveQuestionFromHarness(out, frame.questionId, frame);
      return;
    case 'turn.cancel_requested':
      state.cancelRequested = true;
      return;
    case 'engine.exited': {
      if (state.turn === 'closed') return;
      const message = `opencode exited (code ${frame.code ?? 'none'}, signal ${frame.signal ?? 'none'})`;
      state.errorMessage = message;
      out.emit(`harness.error:${out.frameKey}`, {
        kind: 'harness.error',
        payload: {
          code: 'engine.exited',
          message,
          fatal: true,
          ...(frame.stderrTail ? { detail: frame.stderrTail } : {}),
        },
      });
      return;
    }
    case 'engine.error':
      if (frame.fatal) state.errorMessage = frame.message;
      out.emit(`harness.error:${out.frameKey}`, {
        kind: 'harness.error',
        payload: {
          code: 'engine.error',
          message: frame.message,
          fatal: frame.fatal,
          ...(frame.detail !== undefined ? { detail: frame.detail } : {}),
        },
      });
      return;
    case 'turn.ended':
      if (frame.outcome === 'cancelled') completeTurn(out, 'cancelled');
      else if (frame.outcome === 'failed') completeTurn(out, 'error');
      else if (state.turn === 'open') completeTurn(out, null);
      return;
    default:
      out.warn('harness.unknown_frame', 'an unknown harness frame', frame);
  }
}
