import type { StopReason as AcpStopReason, SessionUpdate, ToolCallStatus } from '@agentclientprotocol/sdk';
import {
  assertNeverEvent,
  type CanonicalEvent,
  type MessageRole,
  type StopReason,
} from '@agentlane/contract';

const STATUS: Record<string, ToolCallStatus> = {
  pending: 'pending',
  running: 'in_progress',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'failed',
};

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
    const text = (
      kind: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk',
      id: string,
      delta: string,
    ) => {
      this.#sent.set(id, (this.#sent.get(id) ?? '') + delta);
      return delta === '' ? [] : [{ sessionUpdate: kind, content: { type: 'text' as const, text: delta } }];
    };
    const rest = (id: string, whole: string) => {
      const sent = this.#sent.get(id) ?? '';
      return whole.length > sent.length && whole.startsWith(sent) ? whole.slice(sent.length) : '';
    };
    switch (event.kind) {
      case 'message.started':
        this.#roles.set(event.payload.messageId, event.payload.role);
        return [];
      // The user's own messages are the prompt: the client sent it (and session/load replays it from the run).
      case 'message.delta':
        if (
          this.#roles.get(event.payload.messageId) !== undefined &&
          this.#roles.get(event.payload.messageId) !== 'assistant'
        )
          return [];
        return text('agent_message_chunk', event.payload.messageId, event.payload.delta);
      case 'message.completed': {
        const p = event.payload;
        if (p.role !== 'assistant') return [];
        return text('agent_message_chunk', p.messageId, rest(p.messageId, p.text));
      }
      case 'reasoning.delta':
        return text('agent_thought_chunk', event.payload.reasoningId, event.payload.delta);
      case 'reasoning.completed':
        return text(
          'agent_thought_chunk',
          event.payload.reasoningId,
          rest(event.payload.reasoningId, event.payload.text),
        );
      case 'tool.started': {
        const p = event.payload;
        return [
          {
            sessionUpdate: 'tool_call',
            toolCallId: p.toolCallId,
            title: p.title ?? p.name,
            kind: p.kind,
            status: STATUS[p.status] ?? 'pending',
            rawInput: p.input,
          },
        ];
      }
      case 'tool.progress': {
        const p = event.payload;
        return [
          {
            sessionUpdate: 'tool_call_update',
            toolCallId: p.toolCallId,
            status: STATUS[p.status] ?? 'pending',
            ...(p.title ? { title: p.title } : {}),
            ...(p.input !== undefined ? { rawInput: p.input } : {}),
          },
        ];
      }
      case 'tool.completed': {
        const p = event.payload;
        const output = p.output ?? p.outputArtifact?.preview ?? p.error;
        return [
          {
            sessionUpdate: 'tool_call_update',
            toolCallId: p.toolCallId,
            status: STATUS[p.status] ?? 'completed',
            ...(output !== undefined ? { rawOutput: output } : {}),
            ...(typeof output === 'string'
              ? { content: [{ type: 'content' as const, content: { type: 'text' as const, text: output } }] }
              : {}),
          },
        ];
      }
      case 'file.changed': {
        const p = event.payload;
        if (!p.toolCallId || !p.diff) return [];
        return [
          {
            sessionUpdate: 'tool_call_update',
            toolCallId: p.toolCallId,
            locations: [{ path: p.path }],
            content: [{ type: 'content', content: { type: 'text', text: p.diff.preview } }],
          },
        ];
      }
      case 'plan.updated':
        return [
          {
            sessionUpdate: 'plan',
            entries: event.payload.entries.map((e) => ({
              content: e.content,
              priority: e.priority ?? 'medium',
              status: e.status === 'cancelled' ? 'completed' : e.status,
            })),
          },
        ];
      case 'usage.updated': {
        const p = event.payload;
        if (p.contextUsedTokens === undefined || p.contextWindowTokens === undefined) return [];
        return [
          {
            sessionUpdate: 'usage_update',
            used: p.contextUsedTokens,
            size: p.contextWindowTokens,
            ...(p.cost ? { cost: p.cost } : {}),
          },
        ];
      }
      case 'mode.updated':
        return [{ sessionUpdate: 'current_mode_update', currentModeId: event.payload.currentModeId }];
      case 'commands.updated':
        return [
          {
            sessionUpdate: 'available_commands_update',
            availableCommands: event.payload.commands.map((c) => ({
              name: c.name,
              description: c.description,
              ...(c.inputHint ? { input: { hint: c.inputHint } } : {}),
            })),
          },
        ];
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
}
