import { AbstractChat, type ChatInit, type ChatState, type ChatStatus, type UIMessage } from 'ai';

/** The state useChat keeps in React, as plain fields: the AI SDK's own chat logic runs on top of it. */
class PlainChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  constructor(public messages: UIMessage[] = []) {}
  pushMessage = (message: UIMessage) => {
    this.messages = this.messages.concat(message);
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = [
      ...this.messages.slice(0, index),
      this.snapshot(message),
      ...this.messages.slice(index + 1),
    ];
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The AI SDK's Chat (what useChat wraps) without React: sendMessage, addToolApprovalResponse, resumeStream. */
export class NodeChat extends AbstractChat<UIMessage> {
  constructor({ messages, ...init }: ChatInit<UIMessage>) {
    super({ ...init, state: new PlainChatState(messages) });
  }
}

/** Resolves once the chat is `ready` (or `error`) again after a request it started. */
export async function settled(chat: NodeChat, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (chat.status === 'submitted' || chat.status === 'streaming') {
    if (Date.now() > deadline) throw new Error(`chat still ${chat.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
