import type { NegotiatedCapabilities } from '../capabilities.js';
import type { ProviderMetadata } from '../envelope.js';

// Payloads of the session, turn, message and reasoning kinds.

// ---------------------------------------------------------------- session and turns

/** How a session came to be: created fresh, loaded with history replay, resumed without replay, or forked. */
export type SessionOrigin = 'new' | 'load' | 'resume' | 'fork';

export interface SessionStartedPayload {
  provider: string;
  nativeSessionId?: string;
  origin: SessionOrigin;
  /** Counts runtime rebindings of the session; a command carrying an older generation is refused. */
  generation: number;
  agent?: { name: string; version?: string };
  cwd?: string;
  title?: string;
  capabilities: NegotiatedCapabilities;
}

export interface ModelInfo {
  id: string;
  name?: string;
  description?: string;
}

export interface SessionMetadataPayload {
  title?: string;
  /** The model in use, when the engine says. */
  model?: ModelInfo;
  /** Models the user may pick; only meaningful when the capability `modelSelection` is true. */
  availableModels?: ModelInfo[];
  /** Reasoning effort or thought level, as the engine names it. */
  reasoningLevel?: string;
  metadata?: ProviderMetadata;
}

export interface TurnStartedPayload {
  /** The user's prompt text, when the turn was started by a prompt. */
  prompt?: string;
  /** The run this run replies to, for a reply created with parent_run_id. */
  parentRunId?: string;
  model?: string;
  mode?: string;
}

/** Why a turn ended. `error` when the engine failed; `other` with `rawStopReason` for anything unknown. */
export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'max_turn_requests'
  | 'refusal'
  | 'cancelled'
  | 'error'
  | 'other';

export interface TurnCompletedPayload {
  stopReason: StopReason;
  rawStopReason?: string;
  durationMs?: number;
}

// ---------------------------------------------------------------- messages and reasoning

export type MessageRole = 'user' | 'assistant' | 'system';

export interface MessageStartedPayload {
  messageId: string;
  role: MessageRole;
}

export interface MessageDeltaPayload {
  messageId: string;
  /** The text part the delta appends to; a message may hold several parts. */
  partId: string;
  /** Incremental text: append, never cumulative. */
  delta: string;
}

export interface MessageCompletedPayload {
  messageId: string;
  role: MessageRole;
  /** The whole text of the message, the truth when deltas and final text disagree. */
  text: string;
}

export interface ReasoningDeltaPayload {
  reasoningId: string;
  partId?: string;
  messageId?: string;
  delta: string;
}

export interface ReasoningCompletedPayload {
  reasoningId: string;
  messageId?: string;
  text: string;
  durationMs?: number;
}
