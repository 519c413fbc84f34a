import { RequestError, type Stream } from '@agentclientprotocol/sdk';

type Message = Stream['readable'] extends ReadableStream<infer M> ? M : never;
type Id = string | number;

const readableId = (id: unknown): id is Id =>
  typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));

/**
 * Why a message with a readable id is not a request the SDK can answer with that id, or undefined. The SDK
 * answers an envelope it cannot read with `id: null` and takes a request without a method for a response to
 * an unknown request (never answered); a client's responses (result or error, no method) pass unchanged.
 */
export function refusal(message: Record<string, unknown>): string | undefined {
  const hasMethod = 'method' in message;
  if (!hasMethod && ('result' in message || 'error' in message)) return undefined;
  if (message.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if (!hasMethod) return 'a request needs a method';
  if (typeof message.method !== 'string') return 'method must be a string';
  // ACP's cancel is a notification: an answer would tell the client it was a request the agent serves.
  if (message.method === 'session/cancel') return 'session/cancel is a notification (send it without an id)';
  return undefined;
}

/**
 * The SDK's message stream with the agent's own screening in front: an invalid request with a readable id
 * is answered -32600 with that id, and the messages after an `initialize` wait for its answer, so a client
 * that pipelines its first request is not refused as uninitialized (the SDK handles requests concurrently).
 */
export function screenedStream(stream: Stream): Stream {
  let writes = Promise.resolve();
  const answered = new Map<Id, () => void>();
  const write = (message: Message) => {
    const next = writes.then(async () => {
      const writer = stream.writable.getWriter();
      try {
        await writer.write(message);
      } finally {
        writer.releaseLock();
      }
    });
    writes = next.catch(() => undefined);
    const m = message as Record<string, unknown>;
    if (!('method' in m) && readableId(m.id))
      next.finally(() => answered.get(m.id as Id)?.()).catch(() => {});
    return next;
  };
  const writable = new WritableStream<Message>({
    write,
    close: () => writes.then(() => stream.writable.close()),
    abort: (reason) => stream.writable.abort(reason),
  });
  const screen = new TransformStream<Message, Message>({
    async transform(message, controller) {
      const m = message as Record<string, unknown>;
      const why = readableId(m.id) ? refusal(m) : undefined;
      if (why !== undefined) {
        const e = RequestError.invalidRequest(undefined, why);
        await write({
          jsonrpc: '2.0',
          id: m.id as Id,
          error: { code: e.code, message: e.message },
        } as Message);
        return;
      }
      if (m.method !== 'initialize' || !readableId(m.id)) return controller.enqueue(message);
      const id = m.id;
      const done = new Promise<void>((resolve) => answered.set(id, resolve));
      controller.enqueue(message);
      await done;
      answered.delete(id);
    },
  });
  return { readable: stream.readable.pipeThrough(screen), writable };
}
