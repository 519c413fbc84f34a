import type { StopReason as AcpStopReason, SessionUpdate } from '@agentclientprotocol/sdk';
import {
  assertNeverEvent,
  type CanonicalEvent,
  type MessageRole,
  type StopReason,
} from '@agentlane/contract';
import {
  commandsUpdate,
  fileChangedUpdate,
  planUpdate,
  toolCallUpdate,
  toolCompletedUpdate,
  toolProgressUpdate,
  usageUpdate,
} from './update-builders.js';

type TextChunk = 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk';

/** The turn's stop reason as ACP names it (ACP has no `error` / `other`: a failed turn ends as end_turn). */
export function acpStopReason(reason: StopReason | undefined): AcpStopReason {
  switch (reason) {
    case 'max_tokens':
    case 'max_turn_requests':
    case 'refusal':
    case 'cancelled':
      return reason;
    default:
      return 'end_turn';
  }
}

/**
 * Canonical events of a session → ACP `session/update` payloads, for agentlane as an ACP agent. Approvals
 * and questions are requests, not updates (the agent sends session/request_permission); kinds ACP has no
 * update for are left out. Text already sent as deltas is not repeated by `*.completed`.
 */
export class SessionUpdateTranslator {
  readonly #roles = new Map<string, MessageRole>();
  readonly #sent = new Map<string, string>();
  readonly #seen = new Set<string>();

  push(event: CanonicalEvent): SessionUpdate[] {
    if (this.#seen.has(event.eventId)) return [];
    this.#seen.add(event.eventId);
    switch (event.kind) {
      case 'message.started':
        this.#roles.set(event.payload.messageId, event.payload.role);
        return [];
      // The user's own messages are the prompt: the client sent it (and session/load replays it from the run).
      case 'message.delta': {
        const role = this.#roles.get(event.payload.messageId);
        if (role !== undefined && role !== 'assistant') return [];
        return this.#text('agent_message_chunk', event.payload.messageId, event.payload.delta);
      }
      case 'message.completed': {
        const p = event.payload;
        if (p.role !== 'assistant') return [];
        return this.#text('agent_message_chunk', p.messageId, this.#unsent(p.messageId, p.text));
      }
      case 'reasoning.delta':
        return this.#text('agent_thought_chunk', event.payload.reasoningId, event.payload.delta);
      case 'reasoning.completed': {
        const { reasoningId, text } = event.payload;
        return this.#text('agent_thought_chunk', reasoningId, this.#unsent(reasoningId, text));
      }
      case 'tool.started':
        return toolCallUpdate(event.payload);
      case 'tool.progress':
        return toolProgressUpdate(event.payload);
      case 'tool.completed':
        return toolCompletedUpdate(event.payload);
      case 'file.changed':
        return fileChangedUpdate(event.payload);
      case 'plan.updated':
        return planUpdate(event.payload);
      case 'usage.updated':
        return usageUpdate(event.payload);
      case 'mode.updated':
        return [{ sessionUpdate: 'current_mode_update', currentModeId: event.payload.currentModeId }];
      case 'commands.updated':
        return commandsUpdate(event.payload);
      case 'session.started':
      case 'session.metadata':
      case 'turn.started':
      case 'turn.completed':
      case 'artifact.created':
      case 'artifact.delivered':
      case 'terminal.output':
      case 'child.started':
      case 'child.updated':
      case 'child.completed':
      case 'approval.requested':
      case 'approval.resolved':
      case 'question.requested':
      case 'question.resolved':
      case 'context.marker':
      case 'harness.warning':
      case 'harness.error':
        return [];
      default:
        return assertNeverEvent(event);
    }
  }

  /** A text chunk, remembered so the part's `*.completed` sends only what the deltas did not. */
  #text(kind: TextChunk, id: string, delta: string): SessionUpdate[] {
    this.#sent.set(id, (this.#sent.get(id) ?? '') + delta);
    return delta === '' ? [] : [{ sessionUpdate: kind, content: { type: 'text', text: delta } }];
  }

  /** What of a completed text was not sent as deltas ('' when all was, or the text is another one). */
  #unsent(id: string, whole: string): string {
    const sent = this.#sent.get(id) ?? '';
    return whole.length > sent.length && whole.startsWith(sent) ? whole.slice(sent.length) : '';
  }
}
