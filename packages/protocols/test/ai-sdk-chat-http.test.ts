import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { CHAT, chunksOf, postChat, readMessage, textOf, userMessage } from './support/chat-http';
import { NodeChat } from './support/node-chat';
import { type Stack, startStack } from './support/stack';

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The chat's messages as the server rebuilds them from the store (what a reloaded page starts with). */
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
    // None of them created a chat.
    expect(await stack.store.getThread('c1')).toBeNull();
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
  it('the history a client posts back may hold what the model said (NUL, a lone surrogate) and be long; the new prompt is checked', async () => {
    stack = await startStack([]);
    // What a server streamed once: refusing it in the history refused every later turn of that chat; and
    // useChat posts the whole history each turn (2 MB here; the API's own limit is 1 MiB).
    const said: UIMessage = {
      id: 'a1',
      role: 'assistant',
      parts: [{ type: 'text', text: `nul \u0000 lone \ud800 ${'x'.repeat(2_000_000)}` }],
    };
    const body = (prompt: string) => ({
      id: 'history-chat',
      engine: 'replay',
      messages: [userMessage('u1', 'first'), said, userMessage('u2', prompt)],
    });
    const ok = await postChat(stack, body('next'));
    expect(ok.status).toBe(200);
    await ok.text();
    for (const [prompt, why] of [
      ['with \u0000 in it', /NUL/],
      ['with \udc00 in it', /surrogate/],
    ] as const) {
      const res = await postChat(stack, { ...body(prompt), id: 'history-chat-2' });
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: { field: string; message: string } };
      expect(error.field).toBe('body.messages[2]');
      expect(error.message).toMatch(why);
    }
  });

  it('a trigger useChat never posts, or a regenerate of a message the chat does not have, is a 400', async () => {
    stack = await startStack([]);
    const s = stack;
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ trigger: 'bogus' }, 'body.trigger', /submit-message, regenerate-message/],
      [{ trigger: 'resume-stream' }, 'body.trigger', /trigger must be/],
      [{ trigger: 'regenerate-message', messageId: 'zzz' }, 'body.messageId', /"zzz".*regenerate/],
      [{ trigger: 'submit-message', messageId: 7 }, 'body.messageId', /string/],
    ];
    for (const [extra, field, message] of cases) {
      const res = await postChat(s, {
        id: 'chat-trigger',
        engine: 'replay',
        messages: [userMessage('u1', 'Create hello.txt')],
        ...extra,
      });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      const { error } = (await res.json()) as { error: { field: string; message: string } };
      expect(error, JSON.stringify(extra)).toMatchObject({ field, message: expect.stringMatching(message) });
    }
    // Refused before anything was created: no chat, no run.
    expect(await s.store.getThread('chat-trigger')).toBeNull();

    // On an existing chat: the AI SDK's own regenerate of the chat's answer (useChat drops it from the
    // request, so its id is known to the server only) starts a new run; an id of no message is refused.
    const chat = chatFor(s, 'chat-regen', 'replay');
    await chat.sendMessage({ text: 'Create hello.txt' });
    await until('the answer', () => chat.status === 'ready' && chat.lastMessage?.role === 'assistant');
    const answer = chat.lastMessage as UIMessage;
    const unknown = await postChat(s, {
      id: 'chat-regen',
      trigger: 'regenerate-message',
      messageId: 'msg-run_not_of_this_chat',
      messages: chat.messages.slice(0, 1),
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { field: string } }).error.field).toBe('body.messageId');
    expect(await s.store.listRuns('chat-regen')).toHaveLength(1);
    await chat.regenerate({ messageId: answer.id });
    await until(
      'the regenerated answer',
      () => chat.status === 'ready' && chat.lastMessage?.id !== answer.id,
    );
    expect(chat.error).toBeUndefined();
    expect(chat.lastMessage?.role).toBe('assistant');
    expect(await s.store.listRuns('chat-regen')).toHaveLength(2);
  });

  it("an assistant message naming another chat's run is refused, naming the message it is in", async () => {
    stack = await startStack([]);
    const s = stack;
    const runIds: string[] = [];
    for (const id of ['chat-own', 'chat-other']) {
      const chunks = await chunksOf(
        await postChat(s, { id, engine: 'replay', messages: [userMessage('u1', 'Create hello.txt')] }),
      );
      const start = chunks[0] as { messageMetadata?: { agentlane?: { runId?: string } } };
      runIds.push(start.messageMetadata?.agentlane?.runId ?? '');
    }
    const forged: UIMessage = {
      id: `msg-${runIds[1]}`,
      role: 'assistant',
      parts: [{ type: 'text', text: '' }],
      metadata: { agentlane: { threadId: 'chat-own', runId: runIds[1], deliverySeq: 0 } },
    };
    const res = await postChat(s, {
      id: 'chat-own',
      messages: [userMessage('u1', 'Create hello.txt'), forged],
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { field: string; message: string } };
    expect(error.field).toBe('body.messages[1].metadata.agentlane.runId');
    expect(error.message).toMatch(/is not a run of chat "chat-own"/);
  });

  it('a chat keeps its engine: a prompt naming another one is 409 naming body.engine, and nothing runs', async () => {
    stack = await startStack([]);
    const s = stack;
    await chunksOf(
      await postChat(s, { id: 'chat-engine', engine: 'replay', messages: [userMessage('u1', 'Hi')] }),
    );
    const res = await postChat(s, {
      id: 'chat-engine',
      engine: 'builtin',
      messages: [userMessage('u1', 'Hi'), userMessage('u2', 'again')],
    });
    expect(res.status).toBe(409);
    const { error } = (await res.json()) as { error: { field: string; message: string } };
    expect(error.field).toBe('body.engine');
    expect(error.message).toMatch(/runs on engine "replay", not "builtin"/);
    expect(await s.store.listRuns('chat-engine')).toHaveLength(1);
  });

  it('an approval answer posted to a chat id never used is 404 naming body.id (the POST has no path id)', async () => {
    stack = await startStack([]);
    const s = stack;
    const chunks = await chunksOf(
      await postChat(s, { id: 'chat-elsewhere', engine: 'replay', messages: [userMessage('u1', 'Hi')] }),
    );
    const runId = (chunks[0] as { messageMetadata?: { agentlane?: { runId?: string } } }).messageMetadata
      ?.agentlane?.runId;
    const answered: UIMessage = {
      id: `msg-${runId}`,
      role: 'assistant',
      parts: [
        {
          type: 'dynamic-tool',
          toolName: 'write_file',
          toolCallId: 'c1',
          state: 'approval-responded',
          input: {},
          approval: { id: 'appr-1', approved: true },
        },
      ],
      metadata: { agentlane: { threadId: 'chat-elsewhere', runId, deliverySeq: 1 } },
    };
    const res = await postChat(s, {
      id: 'b6f0c0de-5e1f-4c55-9a57-0c2f3d1e9a10',
      messages: [userMessage('u1', 'Hi'), answered],
    });
    expect(res.status).toBe(404);
    const { error } = (await res.json()) as { error: { code: string; field: string } };
    expect(error).toMatchObject({ code: 'not_found', field: 'body.id' });
    expect(await s.store.getThread('b6f0c0de-5e1f-4c55-9a57-0c2f3d1e9a10')).toBeNull();
  });

  it('?after= continues the message in the step it holds: no second step-start, as if uninterrupted', async () => {
    stack = await startStack([
      {
        text: 'Writing it.',
        toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' }, id: 'c1' }],
      },
      { text: 'Done.' },
    ]);
    const s = stack;
    // The whole stream up to the approval (the run then waits on it: it stays active).
    const whole = await chunksOf(
      await postChat(s, {
        id: 'chat-after',
        engine: 'builtin',
        messages: [userMessage('u1', 'Write a.txt')],
      }),
    );
    expect(whole.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
    // A client cut right after the first text delta (and the deliverySeq of its row), in the middle of a step.
    const delta = whole.findIndex((c) => c.type === 'text-delta');
    const cut = whole.slice(0, delta + 2);
    expect(cut.at(-1)?.type).toBe('message-metadata');
    const held = await readMessage(cut);
    const after = (held.metadata as { agentlane: { deliverySeq: number } }).agentlane.deliverySeq;
    const rest = await chunksOf(await fetch(`${s.api}${CHAT}/chat-after/stream?after=${after}`));
    expect(rest.slice(1).some((c) => c.type === 'start')).toBe(false);
    const continued = await readMessage(rest, held);
    const uninterrupted = await readMessage(whole);
    expect(continued.id).toBe(uninterrupted.id);
    // The same parts in the same steps (the one step-start of the step the cut was in), the same text.
    const kinds = (m: UIMessage) => m.parts.map((p) => p.type);
    expect(kinds(continued)).toEqual(kinds(uninterrupted));
    expect(kinds(continued).filter((k) => k === 'step-start')).toHaveLength(1);
    expect(textOf(continued)).toBe(textOf(uninterrupted));
    expect(continued.parts.find(isToolUIPart)?.state).toBe('approval-requested');
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
