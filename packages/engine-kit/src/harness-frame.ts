import type { JsonObject, JsonValue, NegotiatedCapabilities, SessionOrigin } from '@agentlane/contract';

/**
 * Frames agentlane itself puts into a run's source lane, next to the engine's native frames, so that
 * re-translating a sealed source reproduces everything the run showed (the prompt, the answers given through
 * the API, an engine that died). Every adapter's translator handles them.
 */
export type HarnessFrame =
  | {
      harness: 'session.bound';
      origin: SessionOrigin;
      generation: number;
      nativeSessionId?: string;
      capabilities: NegotiatedCapabilities;
      agent?: { name: string; version?: string };
      cwd?: string;
      protocolVersion?: string;
    }
  | { harness: 'turn.started'; prompt: string; parentRunId?: string; model?: string; mode?: string }
  | {
      harness: 'approval.answered';
      approvalId: string;
      outcome: 'selected' | 'cancelled';
      optionId?: string;
      answeredBy?: string;
    }
  | {
      harness: 'question.answered';
      questionId: string;
      outcome: 'answered' | 'declined' | 'cancelled';
      choiceIds?: string[];
      text?: string;
      answeredBy?: string;
    }
  | { harness: 'turn.cancel_requested'; requestedBy?: string }
  | { harness: 'engine.exited'; code: number | null; signal: string | null; stderrTail?: string }
  | { harness: 'engine.error'; message: string; fatal: boolean; detail?: JsonValue }
  /** A native frame the lane did not store (e.g. nested too deep to serialise); it stands in its place. */
  | { harness: 'frame.dropped'; reason: string; message: string; detail?: JsonValue }
  | { harness: 'turn.ended'; outcome: 'completed' | 'failed' | 'cancelled'; error?: string };

export function isHarnessFrame(frame: JsonValue): frame is HarnessFrame & JsonObject {
  return (
    typeof frame === 'object' &&
    frame !== null &&
    !Array.isArray(frame) &&
    typeof (frame as Record<string, unknown>).harness === 'string'
  );
}
