import { isToolUIPart, type UIMessage, type UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CHAT,
  chunksOf,
  deliverySeqOf,
  postChat,
  readMessage,
  textOf,
  userMessage,
} from './support/chat-http';
import { type Stack, startStack } from './support/stack';

// `GET …/chat/:id/stream?after=N` continues the message the client holds after the row N it holds, also
// when the run ended meanwhile (a client cut mid-run reconnecting later), and refuses a cursor beyond the head.

/** The chunks up to the first text delta and the message-metadata chunk after it: a client cut mid-message. */
function cutAfterFirstDelta(whole: UIMessageChunk[]): UIMessageChunk[] {
  const delta = whole.findIndex((c) => c.type === 'text-delta');
  expect(delta).toBeGreaterThan(0);
  const cut = whole.slice(0, delta + 2);
  expect(cut.at(-1)?.type).toBe('message-metadata');
  return cut;
}

const resume = (s: Stack, chatId: string, after: number | string) =>
  fetch(`${s.api}${CHAT}/${chatId}/stream?after=${after}`);

/** The message's tool calls and their states (its text parts differ after a cut: a new part per stream). */
const toolStates = (m: UIMessage) => m.parts.filter(isToolUIPart).map((p) => [p.toolCallId, p.state]);

describe('useChat resume with ?after= (the AI SDK chat reconnect)', () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  it('a run that settled after the client was cut: the rest of its message, then finish', async () => {
    stack = await startStack([]);
    const s = stack;
    // Read to its end: the run has settled once the stream's `finish` is here.
    const whole = await chunksOf(
      await postChat(s, {
        id: 'chat-late',
        engine: 'replay',
        messages: [userMessage('u1', 'Create hello.txt')],
      }),
    );
    expect(whole.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    const uninterrupted = await readMessage(whole);
    const held = await readMessage(cutAfterFirstDelta(whole));

    const res = await resume(s, 'chat-late', deliverySeqOf(held) as number);
    expect(res.status).toBe(200);
    const rest = await chunksOf(res);
    expect(rest[0]).toMatchObject({ type: 'start', messageId: uninterrupted.id });
    expect(rest.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    const continued = await readMessage(rest, held);
    expect(textOf(continued)).toBe(textOf(uninterrupted));
    expect(toolStates(continued)).toEqual(toolStates(uninterrupted));
    expect(continued.metadata).toEqual(uninterrupted.metadata);

    // A cursor at the run's last row (a client that lost only the closing chunks): no content, but `finish`,
    // and the message it holds stays as it is.
    const last = deliverySeqOf(uninterrupted) as number;
    const closing = await chunksOf(await resume(s, 'chat-late', last));
    const contentTypes = closing
      .map((c) => c.type)
      .filter((t) => !['start', 'finish-step', 'finish'].includes(t));
    expect(contentTypes).toEqual([]);
    expect(closing.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    expect(await readMessage(closing, uninterrupted)).toEqual(uninterrupted);

    // useChat's plain resume (no cursor) with no run active is still 204: nothing to resume.
    expect((await fetch(`${s.api}${CHAT}/chat-late/stream`)).status).toBe(204);
  });

  it("a cursor of a settled run while a newer run is active continues the cursor's message, not the newer one", async () => {
    stack = await startStack([
      { text: 'First answer.' },
      {
        text: 'Let me write.',
        toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' }, id: 'c1' }],
      },
    ]);
    const s = stack;
    const first = await chunksOf(
      await postChat(s, {
        id: 'chat-two',
        engine: 'builtin',
        messages: [userMessage('u1', 'Say something')],
      }),
    );
    expect(first.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    // The second run waits on its approval: it stays active.
    const second = await chunksOf(
      await postChat(s, { id: 'chat-two', messages: [userMessage('u2', 'Write a.txt')] }),
    );
    expect(second.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
    expect((await s.store.listRuns('chat-two')).map((r) => r.status)).toEqual(['completed', 'running']);

    const uninterrupted = await readMessage(first);
    const held = await readMessage(cutAfterFirstDelta(first));
    const rest = await chunksOf(await resume(s, 'chat-two', deliverySeqOf(held) as number));
    expect(rest[0]).toMatchObject({ type: 'start', messageId: uninterrupted.id });
    expect(rest.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    const continued = await readMessage(rest, held);
    expect(textOf(continued)).toBe('First answer.');
    expect(continued.parts.some(isToolUIPart)).toBe(false);
    expect(continued.metadata).toEqual(uninterrupted.metadata);
  });

  it('a cursor beyond the head of the chat is 409 with the head, as the thread events route answers', async () => {
    stack = await startStack([]);
    const s = stack;
    await chunksOf(
      await postChat(s, {
        id: 'chat-head',
        engine: 'replay',
        messages: [userMessage('u1', 'Create hello.txt')],
      }),
    );
    const head = await s.store.headDeliverySeq('chat-head');
    expect(head).toBeGreaterThan(0);
    for (const after of [String(head + 1), '99999999999999999999']) {
      const res = await resume(s, 'chat-head', after);
      expect(res.status, after).toBe(409);
      expect(await res.json()).toEqual({
        error: { code: 'conflict', message: expect.stringMatching(/beyond the head/), field: 'query.after' },
        headDeliverySeq: head,
      });
    }
    // At the head: accepted (the last row's run, finished).
    const atHead = await resume(s, 'chat-head', head);
    expect(atHead.status).toBe(200);
    expect((await chunksOf(atHead)).at(-1)?.type).toBe('finish');
  });
});
