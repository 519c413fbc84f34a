import { assertThreadAccess, HttpError, type ServerContext } from '@agentlane/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { newestActiveRun } from '../active-run.js';
import type { StreamRegistry } from '../sse-out.js';
import { assertChatIdParam } from './chat-request.js';
import { streamRunAsUiMessages } from './chat-stream.js';

/** How a cursor is written: decimal digits, no sign, exponent, hex prefix, space or leading zero. */
const PLAIN_DECIMAL = /^(0|[1-9][0-9]*)$/;

export interface ReconnectRoute {
  Params: { id: string };
  Querystring: { after?: string };
}

/** `GET …/chat/:id/stream` (useChat's reconnect): the chat's active run after `after`; 204 when none is. */
export async function handleChatReconnect(
  request: FastifyRequest<ReconnectRoute>,
  reply: FastifyReply,
  ctx: ServerContext,
  registry: StreamRegistry,
): Promise<FastifyReply> {
  assertChatIdParam(request.params.id);
  assertThreadAccess(request.principal, request.params.id);
  const rawAfter = request.query.after;
  // The thread events route's rule (the server's resumeCursor, not exported): Number() would also read
  // `0x10`, `+5`, `05`, `1e2`, ` 5` and the empty string, none of them a deliverySeq this server wrote.
  if (rawAfter !== undefined && !PLAIN_DECIMAL.test(rawAfter))
    throw new HttpError(
      'invalid_request',
      'after must be a plain decimal integer (a deliverySeq)',
      'query.after',
    );
  const after = rawAfter === undefined ? 0 : Number(rawAfter);
  if (!Number.isSafeInteger(after))
    throw new HttpError('invalid_request', 'after is beyond any deliverySeq', 'query.after');
  // useChat's `resume: true` asks on mount, also for a chat id nothing was sent to yet: no run is active.
  const thread = await ctx.store.getThread(request.params.id);
  if (!thread) return reply.code(204).send();
  const active = await newestActiveRun(ctx.store, thread.threadId);
  if (!active) return reply.code(204).send();
  await streamRunAsUiMessages(ctx, registry, reply, {
    threadId: thread.threadId,
    runId: active.runId,
    after,
    seed: after,
  });
  return reply;
}
