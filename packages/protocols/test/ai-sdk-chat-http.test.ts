import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeChat } from './support/node-chat';
import { type Stack, startStack } from './support/stack';

const CHAT = '/protocols/ai-sdk/chat';

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const textOf = (m: UIMessage | undefined) =>
  (m?.parts ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');

/** The chat's messages as the server rebuilds them from the store (what a reloaded page starts with). */
/** A raw POST to the chat endpoint, as a client other than useChat sends it. */
const postChat = (stack: Stack, body: unknown) =>
  fetch(`${stack.api}${CHAT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function storedMessages(stack: Stack, chatId: string): Promise<UIMessage[]> {
  const res = await fetch(`${stack.api}${CHAT}/${chatId}/messages`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: UIMessage[] }).messages;
}

describe('the AI SDK UI message stream (useChat over DefaultChatTransport)', () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  const chatFor = (s: Stack, id: string, engine: string, messages: UIMessage[] = []) =>
    new NodeChat({
      id,
      messages,
      transport: new DefaultChatTransport({ api: `${s.api}${CHAT}`, body: { engine } }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });

  it('built-in engine: a write needs approval, useChat approves it, the run finishes in the same message', async () => {
    stack = await startStack([
      {
        text: 'Writing it.',
        toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hi\n' }, id: 'call_w1' }],
      },
      { text: 'Done: hello.txt holds hi.' },
    ]);
    const s = stack;
    const chat = chatFor(s, 'chat-builtin', 'builtin');
    await chat.sendMessage({ text: 'Create hello.txt' });
    // The first stream ends at the approval: the tool part waits for an answer.
    const asked = await until('the approval request', () => {
      const tool = chat.lastMessage?.parts.find(isToolUIPart);
      return chat.status === 'ready' && tool?.state === 'approval-requested' ? tool : undefined;
    });
    expect(chat.lastMessage?.id).toMatch(/^msg-run_/);
    expect(asked.input).toEqual({ path: 'hello.txt', content: 'hi\n' });
    await chat.addToolApprovalResponse({ id: asked.approval.id, approved: true });
    const final = await until('the finished answer', () => {
      const m = chat.lastMessage;
      return chat.status === 'ready' && textOf(m).includes('Done: hello.txt holds hi.') ? m : undefined;
    });
    expect(chat.error).toBeUndefined();
    expect(chat.messages).toHaveLength(2);
    const tool = final.parts.find(isToolUIPart);
    expect(tool).toMatchObject({ state: 'output-available', toolCallId: 'call_w1' });
    // Each text once, though the message came in two streams.
    expect(textOf(final)).toBe('Writing it.Done: hello.txt holds hi.');
    expect(final.metadata).toMatchObject({ agentlane: { stopReason: 'end_turn' } });

    // The message the store rebuilds is the one the client holds.
    const stored = await storedMessages(s, 'chat-builtin');
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(textOf(stored[1])).toBe(textOf(final));
    expect(stored[1]?.parts.find(isToolUIPart)?.state).toBe('output-available');
  });

  it('replay: a recorded Claude Code session streams through; resume after it ended answers 204', async () => {
    stack = await startStack([]);
    const s = stack;
    const chat = chatFor(s, 'chat-replay', 'replay');
    await chat.sendMessage({ text: 'Create hello.txt' });
    const final = await until('the replayed answer', () =>
      chat.status === 'ready' && chat.lastMessage?.role === 'assistant' ? chat.lastMessage : undefined,
    );
    expect(textOf(final)).toBe(
      'I will create hello.txt now.Done: hello.txt was written. (final answer from fake model)',
    );
    expect(final.parts.some((p) => p.type === 'reasoning')).toBe(true);
    expect(final.parts.find(isToolUIPart)?.state).toBe('output-available');
    const resumed = await fetch(`${s.api}${CHAT}/chat-replay/stream`);
    expect(resumed.status).toBe(204);
    const stored = await storedMessages(s, 'chat-replay');
    expect(textOf(stored[1])).toBe(textOf(final));
  });

  it('an approval answered at once by someone else (a paced replay) does not pause the stream', async () => {
    stack = await startStack([]);
    const chat = chatFor(stack, 'chat-paced', 'replay-paced');
    await chat.sendMessage({ text: 'Run a command' });
    const final = await until('the replayed answer', () =>
      chat.status === 'ready' && chat.lastMessage?.role === 'assistant' ? chat.lastMessage : undefined,
    );
    // One stream to the end: the tool ran, no approval is left waiting, and the turn ended normally.
    const tool = final.parts.find(isToolUIPart);
    expect(tool?.state).toBe('output-available');
    expect(final.metadata).toMatchObject({ agentlane: { stopReason: 'end_turn' } });
    expect(chat.messages).toHaveLength(2);
  });

  it('a reload while a run waits on its approval: resume replays the message once, then it is answered', async () => {
    stack = await startStack([
      {
        text: 'Let me write.',
        toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' }, id: 'c1' }],
      },
      { text: 'Written.' },
    ]);
    const s = stack;
    const first = chatFor(s, 'chat-reload', 'builtin');
    await first.sendMessage({ text: 'Write a.txt' });
    await until(
      'the approval request',
      () => first.status === 'ready' && first.lastMessage?.role === 'assistant',
    );
    const before = first.lastMessage as UIMessage;

    // A new page: the stored messages (the active run has only its prompt), then useChat's resume.
    const history = await storedMessages(s, 'chat-reload');
    expect(history.map((m) => m.role)).toEqual(['user']);
    const second = chatFor(s, 'chat-reload', 'builtin', history);
    await second.resumeStream();
    const resumed = await until('the resumed message', () =>
      second.status === 'ready' && second.lastMessage?.role === 'assistant' ? second.lastMessage : undefined,
    );
    expect(resumed).toEqual(before);

    // Resuming again on the same page (useChat replaces the message it already holds) doubles nothing.
    await second.resumeStream();
    await until('the second resume', () => second.status === 'ready');
    expect(second.messages).toHaveLength(2);
    expect(second.lastMessage).toEqual(before);

    const tool = resumed.parts.find(isToolUIPart);
    if (tool?.state !== 'approval-requested') throw new Error('expected a pending approval');
    await second.addToolApprovalResponse({ id: tool.approval.id, approved: false });
    const final = await until('the answer after the denial', () =>
      second.status === 'ready' && textOf(second.lastMessage).includes('Written.')
        ? second.lastMessage
        : undefined,
    );
    expect(final.parts.find(isToolUIPart)?.state).toBe('output-denied');
    expect(textOf(final)).toBe('Let me write.Written.');
  });

  it('bad requests get a 4xx with the error body, never a stream', async () => {
    stack = await startStack([]);
    const post = (body: unknown) => postChat(stack as Stack, body);
    const cases: [unknown, string][] = [
      [[], 'body'],
      [{ id: 'bad id!', messages: [] }, 'body.id'],
      [{ id: 'c1', messages: [{ role: 'user' }] }, 'body.messages'],
      [
        {
          id: 'c1',
          engine: 'nope',
          messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        },
        'body.engine',
      ],
      [
        { id: 'c1', messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] },
        'body.engine',
      ],
      [
        { id: 'c1', messages: [{ id: 'a', role: 'assistant', parts: [] }] },
        'body.messages[0].metadata.agentlane',
      ],
      [
        {
          id: 'c1',
          engine: 'replay',
          messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'x'.repeat(200_001) }] }],
        },
        'body.messages[0]',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { field: string } }).error.field).toBe(field);
    }
    // useChat's `resume: true` resumes on mount, also a chat nothing was sent to yet: nothing to resume.
    expect((await fetch(`${stack.api}${CHAT}/unknown-chat/stream`)).status).toBe(204);
    const badCursor = await fetch(`${stack.api}${CHAT}/unknown-chat/stream?after=-1`);
    expect(badCursor.status).toBe(400);
    expect(((await badCursor.json()) as { error: { field: string } }).error.field).toBe('query.after');
    expect((await fetch(`${stack.api}${CHAT}/unknown-chat/messages`)).status).toBe(404);
    for (const path of ['..%2f..%2fetc%2fpasswd/stream', '..%2f..%2fetc%2fpasswd/messages']) {
      const res = await fetch(`${stack.api}${CHAT}/${path}`);
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { error: { field: string } }).error.field).toBe('params.id');
    }
  });
  it('a failed run reaches useChat as an error (chat.error, onError), not as a finished answer', async () => {
    stack = await startStack([{ error: { status: 400, message: 'the provider refused' } }]);
    const errors: Error[] = [];
    const chat = new NodeChat({
      id: 'chat-fail',
      transport: new DefaultChatTransport({ api: `${stack.api}${CHAT}`, body: { engine: 'builtin' } }),
      onError: (error) => errors.push(error),
    });
    await chat.sendMessage({ text: 'fail please' });
    await until('the error', () => chat.status === 'error');
    expect(chat.error?.message).toBeTruthy();
    expect(errors).toHaveLength(1);
  });

  it('the same client message id in two chats is two runs (ids are unique only within a chat)', async () => {
    stack = await startStack([]);
    const post = (chatId: string) =>
      postChat(stack as Stack, {
        id: chatId,
        engine: 'replay',
        trigger: 'submit-message',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Create hello.txt' }] }],
      });
    for (const chatId of ['chat-a', 'chat-b']) {
      const res = await post(chatId);
      expect(res.status, chatId).toBe(200);
      await res.text();
    }
    const [a, b] = await Promise.all(['chat-a', 'chat-b'].map((id) => storedMessages(stack as Stack, id)));
    const runIdOf = (m: UIMessage | undefined) =>
      (m?.metadata as { agentlane?: { runId?: string } } | undefined)?.agentlane?.runId;
    expect(runIdOf(a?.[1])).toMatch(/^run_/);
    expect(runIdOf(b?.[1])).toMatch(/^run_/);
    expect(runIdOf(a?.[1])).not.toBe(runIdOf(b?.[1]));
  });
  it('every content chunk is followed by the deliverySeq of its row, so a cut anywhere resumes exactly', async () => {
    stack = await startStack([]);
    const res = await postChat(stack, {
      id: 'chat-seqs',
      engine: 'replay',
      trigger: 'submit-message',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Create hello.txt' }] }],
    });
    const chunks = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; messageMetadata?: unknown });
    const seqOf = (c: { messageMetadata?: unknown }) =>
      (c.messageMetadata as { agentlane?: { deliverySeq?: number } } | undefined)?.agentlane?.deliverySeq;
    let deltas = 0;
    let lastSeq = 0;
    chunks.forEach((c, i) => {
      if (c.type === 'text-delta' || c.type === 'reasoning-delta') {
        deltas++;
        // A delta is one row: the chunk after it says that row's deliverySeq.
        const next = chunks[i + 1];
        expect(next?.type, JSON.stringify(chunks.slice(i, i + 2))).toBe('message-metadata');
      }
      const seq = seqOf(c);
      if (seq !== undefined) {
        expect(seq).toBeGreaterThanOrEqual(lastSeq);
        lastSeq = seq;
      }
    });
    expect(deltas).toBeGreaterThan(1);
  });
});
