import type { SessionUpdate, ToolCallStatus } from '@agentclientprotocol/sdk';
import type {
  CommandsUpdatedPayload,
  FileChangedPayload,
  PlanUpdatedPayload,
  ToolCompletedPayload,
  ToolProgressPayload,
  ToolStartedPayload,
  UsageUpdatedPayload,
} from '@agentlane/contract';

// The session updates a canonical event maps to on its own, without what the stream sent before.

const STATUS: Record<string, ToolCallStatus> = {
  pending: 'pending',
  running: 'in_progress',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'failed',
};

export function toolCallUpdate(p: ToolStartedPayload): SessionUpdate[] {
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

export function toolProgressUpdate(p: ToolProgressPayload): SessionUpdate[] {
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

/** The call's output (or error) as raw output, and as text content when it is text. */
export function toolCompletedUpdate(p: ToolCompletedPayload): SessionUpdate[] {
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

/** A file a tool call changed, with its diff preview; a change outside a tool call has no ACP update. */
export function fileChangedUpdate(p: FileChangedPayload): SessionUpdate[] {
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

/** ACP's plan has no `cancelled` entry: a cancelled entry is done with. */
export function planUpdate(p: PlanUpdatedPayload): SessionUpdate[] {
  return [
    {
      sessionUpdate: 'plan',
      entries: p.entries.map((e) => ({
        content: e.content,
        priority: e.priority ?? 'medium',
        status: e.status === 'cancelled' ? 'completed' : e.status,
      })),
    },
  ];
}

/** ACP's usage update is the context window's fill: usage without both figures has none. */
export function usageUpdate(p: UsageUpdatedPayload): SessionUpdate[] {
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

export function commandsUpdate(p: CommandsUpdatedPayload): SessionUpdate[] {
  return [
    {
      sessionUpdate: 'available_commands_update',
      availableCommands: p.commands.map((c) => ({
        name: c.name,
        description: c.description,
        ...(c.inputHint ? { input: { hint: c.inputHint } } : {}),
      })),
    },
  ];
}
