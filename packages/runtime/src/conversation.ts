import type { ConversationMessage, JsonValue } from '@agentlane/contract';
import type { ModelMessage } from 'ai';
import { asDeniedOutput } from './approvals.js';

/** The contract's conversation (what checkpoints hold) → AI SDK model messages. Reasoning is not replayed. */
export function toModelMessages(conversation: readonly ConversationMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of conversation) {
    if (m.role === 'user' || m.role === 'system') {
      const text = m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
      const previous = out.at(-1);
      // After a turn that got no answer (an empty reply, a failed call) the next prompt would follow the last
      // one directly; providers want turns to alternate, so the two prompts go as one user message.
      if (m.role === 'user' && previous?.role === 'user' && typeof previous.content !== 'string')
        previous.content.push({ type: 'text', text });
      else
        out.push(
          m.role === 'user'
            ? { role: 'user', content: [{ type: 'text', text }] }
            : { role: 'system', content: text },
        );
    } else if (m.role === 'assistant') {
      const content: Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string> = [];
      for (const p of m.parts) {
        if (p.type === 'text' && p.text.length > 0) content.push({ type: 'text', text: p.text });
        else if (p.type === 'tool-call')
          content.push({ type: 'tool-call', toolCallId: p.toolCallId, toolName: p.toolName, input: p.input });
      }
      if (content.length > 0) out.push({ role: 'assistant', content });
    } else {
      out.push({
        role: 'tool',
        content: m.parts.flatMap((p) =>
          p.type === 'tool-result'
            ? [
                {
                  type: 'tool-result' as const,
                  toolCallId: p.toolCallId,
                  toolName: p.toolName,
                  output:
                    (p.isError ? asDeniedOutput(p.output) : null) ??
                    (p.isError
                      ? {
                          type: 'error-text' as const,
                          value: typeof p.output === 'string' ? p.output : JSON.stringify(p.output),
                        }
                      : { type: 'json' as const, value: p.output as never }),
                },
              ]
            : [],
        ),
      });
    }
  }
  return out;
}

export function jsonSafe(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    return String(value);
  }
}
