import type { ChannelSnapshot } from './checkpoint.js';
import type { PlanEntry } from './events.js';
import type { JsonValue } from './json.js';
import type { VersionVector } from './version-vector.js';

export type ConversationPart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: JsonValue }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: JsonValue; isError: boolean };

export interface ConversationMessage {
  id: string;
  role: 'system' | 'user' | 'assistant' | 'tool';
  parts: ConversationPart[];
}

/**
 * The state a checkpoint hydrates to. Two runtimes prove they agree by the sha256 of its canonical JSON
 * (RFC 8785), byte for byte.
 */
export interface SessionState {
  conversation: ConversationMessage[];
  plan: PlanEntry[];
  versionVector: VersionVector;
  channels: Record<string, ChannelSnapshot>;
}
