import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import type { Stack } from './stack';

/** The AI SDK chat routes under the API prefix. */
export const CHAT = '/protocols/ai-sdk/chat';

export const textOf = (m: UIMessage | undefined) =>
  (m?.parts ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');

/** A raw POST to the chat endpoint, as a client other than useChat sends it. */
export const postChat = (stack: Stack, body: unknown) =>
  fetch(`${stack.api}${CHAT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The chunks of a UI message stream response (without `[DONE]`). */
export async function chunksOf(res: Response): Promise<UIMessageChunk[]> {
  return (await res.text())
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as UIMessageChunk);
}

/** What the AI SDK's own reader makes of `chunks`, continuing `message` when given (as useChat does). */
export async function readMessage(chunks: UIMessageChunk[], message?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  let last = message;
  for await (const m of readUIMessageStream({
    stream,
    ...(message ? { message: structuredClone(message) } : {}),
    terminateOnError: true,
  }))
    last = structuredClone(m);
  return last as UIMessage;
}

export const userMessage = (id: string, text: string): UIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

/** The deliverySeq a message's metadata holds (what a client sends as `?after=`). */
export const deliverySeqOf = (m: UIMessage): number | undefined =>
  (m.metadata as { agentlane?: { deliverySeq?: number } } | undefined)?.agentlane?.deliverySeq;
