import type { AssistantMessage, Event, Message, ToolCall } from '@ag-ui/core';
import { EventType } from '@ag-ui/core';

/**
 * The messages an AG-UI client holds after applying a stream's events, built by the same rules as the
 * reference client's reducer (`defaultApplyEvents`), so a MESSAGES_SNAPSHOT says exactly what a client that
 * followed the stream has: a start for a known id appends to it, a tool call without a parent message gets
 * an assistant message of its own id, a tool result goes after the message holding its call.
 */
export class MessageList {
  readonly #messages: Message[] = [];

  snapshot(): Message[] {
    return structuredClone(this.#messages);
  }

  user(id: string, content: string): void {
    this.#messages.push({ id, role: 'user', content });
  }

  apply(event: Event): void {
    switch (event.type) {
      case EventType.TEXT_MESSAGE_START:
        if (!this.#find(event.messageId))
          this.#messages.push({ id: event.messageId, role: 'assistant', content: '' });
        return;
      case EventType.TEXT_MESSAGE_CONTENT: {
        const m = this.#find(event.messageId);
        if (m && 'content' in m)
          m.content = `${typeof m.content === 'string' ? m.content : ''}${event.delta}`;
        return;
      }
      case EventType.REASONING_MESSAGE_START:
        if (!this.#find(event.messageId))
          this.#messages.push({ id: event.messageId, role: 'reasoning', content: '' });
        return;
      case EventType.REASONING_MESSAGE_CONTENT: {
        const m = this.#find(event.messageId);
        if (m && m.role === 'reasoning') m.content = `${m.content}${event.delta}`;
        return;
      }
      case EventType.TOOL_CALL_START: {
        if (this.#call(event.toolCallId)) return;
        const holder: AssistantMessage = { id: event.toolCallId, role: 'assistant', toolCalls: [] };
        this.#messages.push(holder);
        holder.toolCalls?.push({
          id: event.toolCallId,
          type: 'function',
          function: { name: event.toolCallName, arguments: '' },
        });
        return;
      }
      case EventType.TOOL_CALL_ARGS: {
        const call = this.#call(event.toolCallId);
        if (call) call.function.arguments += event.delta;
        return;
      }
      case EventType.TOOL_CALL_RESULT: {
        const result: Message = {
          id: event.messageId,
          toolCallId: event.toolCallId,
          role: 'tool',
          content: event.content as string,
        };
        const at = this.#messages.findIndex(
          (m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.id === event.toolCallId),
        );
        if (at === -1) {
          this.#messages.push(result);
          return;
        }
        let next = at + 1;
        while (next < this.#messages.length && this.#messages[next]?.role === 'tool') next++;
        this.#messages.splice(next, 0, result);
        return;
      }
      default:
        return;
    }
  }

  #find(id: string): Message | undefined {
    return this.#messages.find((m) => m.id === id);
  }

  #call(toolCallId: string): ToolCall | undefined {
    for (const m of this.#messages) {
      if (m.role !== 'assistant') continue;
      const call = m.toolCalls?.find((c) => c.id === toolCallId);
      if (call) return call;
    }
    return undefined;
  }
}
