import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { readFrames } from './support/ag-ui-check';
import { NodeChat, settled } from './support/node-chat';
import { type Stack, startStack } from './support/stack';

// What a client holds must be what the server says it holds: the messages route after a regenerate, an
// answer that contradicts the approval's resolution, and a resume cursor only in the spelling the server writes.

const CHAT = '/protocols/ai-sdk/chat';

const chatFor = (s: Stack, id: string, engine: string) =>
  new NodeChat({
    id,
    transport: new DefaultChatTransport({ api: `${s.api}${CHAT}`, body: { engine } }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });

async function storedMessages(stack: Stack, chatId: string): Promise<UIMessage[]> {
  const res = await fetch(`${stack.api}${CHAT}/${chatId}/messages`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: UIMessage[] }).messages;
}

describe('the AI SDK chat agrees with what useChat holds', () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  it('after a regenerate, the messages route holds the new answer in place of the replaced one', async () => {
    stack = await startStack([]);
    const chat = chatFor(stack, 'chat-regen-history', 'replay');
    await chat.sendMessage({ text: 'Create hello.txt' });
    await settled(chat);
    const replaced = chat.lastMessage as UIMessage;
    expect(replaced.role).toBe('assistant');
    await chat.regenerate({ messageId: replaced.id });
    await settled(chat);
    expect(chat.error).toBeUndefined();
    expect(chat.lastMessage?.id).not.toBe(replaced.id);
    const stored = await storedMessages(stack, 'chat-regen-history');
    expect(stored.map((m) => [m.role, m.id])).toEqual(chat.messages.map((m) => [m.role, m.id]));
    expect(stored).toHaveLength(2);
  });

  it('an edited user message is a new run, and the messages route holds it in place of the old one', async () => {
    stack = await startStack([]);
    const chat = chatFor(stack, 'chat-edit-history', 'replay');
    await chat.sendMessage({ text: 'Create hello.txt' });
    await settled(chat);
    const first = chat.messages[0] as UIMessage;
    const before = await stack.store.listRuns('chat-edit-history');
    // useChat's edit: the same message id, other text; the answer after it is dropped.
    await chat.sendMessage({ text: 'Create hello.txt, please', messageId: first.id });
    await settled(chat);
    expect(chat.error).toBeUndefined();
    const runs = await stack.store.listRuns('chat-edit-history');
    expect(runs).toHaveLength(before.length + 1);
    expect(runs.at(-1)?.prompt).toBe('Create hello.txt, please');
    const stored = await storedMessages(stack, 'chat-edit-history');
    expect(stored.map((m) => [m.role, m.id])).toEqual(chat.messages.map((m) => [m.role, m.id]));
    expect(stored[0]?.parts).toEqual([{ type: 'text', text: 'Create hello.txt, please' }]);
  });

  it('a useChat answer contradicting an approval already resolved elsewhere is 409 naming the answer', async () => {
    stack = await startStack([
      {
        text: 'Let me write.',
        toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' }, id: 'c1' }],
      },
      { text: 'Written.' },
    ]);
    const s = stack;
    const chat = chatFor(s, 'chat-conflict', 'builtin');
    await chat.sendMessage({ text: 'Write a.txt' });
    await settled(chat);
    const parts = chat.lastMessage?.parts ?? [];
    const at = parts.findIndex(isToolUIPart);
    const tool = parts[at];
    if (!tool || !isToolUIPart(tool) || tool.state !== 'approval-requested')
      throw new Error('expected a pending approval');
    // Denied by an AG-UI client first; its run goes on to the end.
    const denied = await fetch(`${s.api}/protocols/ag-ui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        threadId: 'chat-conflict',
        runId: 'agrun-deny',
        messages: [],
        tools: [],
        context: [],
        resume: [{ interruptId: tool.approval.id, status: 'resolved', payload: { approved: false } }],
      }),
    });
    expect(denied.status).toBe(200);
    await readFrames(denied);

    await chat.addToolApprovalResponse({ id: tool.approval.id, approved: true });
    await settled(chat);
    const body = JSON.parse(chat.error?.message ?? '{}') as { error?: { code: string; field: string } };
    expect(body.error).toMatchObject({ code: 'conflict', field: `body.messages[1].parts[${at}].approval` });
  });

  it('?after= takes only a plain decimal deliverySeq, as the thread events route does', async () => {
    stack = await startStack([]);
    for (const after of ['0x10', '+5', '05', '1e2', ' 5', '', '-1', '1.0']) {
      const res = await fetch(`${stack.api}${CHAT}/any-chat/stream?after=${encodeURIComponent(after)}`);
      expect(res.status, JSON.stringify(after)).toBe(400);
      expect(((await res.json()) as { error: { field: string } }).error.field).toBe('query.after');
    }
    expect((await fetch(`${stack.api}${CHAT}/any-chat/stream?after=0`)).status).toBe(204);
    expect((await fetch(`${stack.api}${CHAT}/any-chat/stream?after=12`)).status).toBe(204);
  });
});
