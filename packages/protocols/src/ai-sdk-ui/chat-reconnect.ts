import {
  AFTER_QUERY,
  assertCursorSpelling,
  assertThreadAccess,
  cursorWithinHead,
  type ServerContext,
} from '@agentlane/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StreamRegistry } from '../sse-out.js';
import { runToResume } from './chat-cursor.js';
import { assertChatIdParam } from './chat-request.js';
import { streamRunAsUiMessages } from './chat-stream.js';

export interface ReconnectRoute {
  Params: { id: string };
  Querystring: { after?: string };
}

/**
 * `GET …/chat/:id/stream` (useChat's reconnect): the rest of the message after `after` (see runToResume),
 * ending with `finish` also when its run settled meanwhile; 204 when there is nothing to follow.
 */
export async function handleChatReconnect(
  request: FastifyRequest<ReconnectRoute>,
  reply: FastifyReply,
  ctx: ServerContext,
  registry: StreamRegistry,
): Promise<FastifyReply> {
  assertChatIdParam(request.params.id);
  assertThreadAccess(request.principal, request.params.id);
  const cursor = request.query.after === undefined ? undefined : { raw: request.query.after, ...AFTER_QUERY };
  if (cursor) assertCursorSpelling(cursor);
  // useChat's `resume: true` asks on mount, also for a chat id nothing was sent to yet: nothing to resume
  // (whatever the cursor: there is no head to hold it against, and no run it could name).
  const thread = await ctx.store.getThread(request.params.id);
  if (!thread) return reply.code(204).send();
  // The head only grows: a cursor at or below it now stays so while the stream runs.
  const after = cursor
    ? cursorWithinHead(cursor, await ctx.store.headDeliverySeq(thread.threadId), 'chat')
    : 0;
  const runId = await runToResume(ctx.store, thread.threadId, after);
  if (runId === undefined) return reply.code(204).send();
  // A cursor at the last row of a settled run still gets `start` and `finish` rather than 204: a client cut
  // after that row but before `finish` (written when the run settles, after the row) would otherwise keep its
  // parts streaming and never learn the finish reason; one that had it already gets the same chunks again,
  // which change nothing in the message useChat holds (same id, same metadata).
  await streamRunAsUiMessages(ctx, registry, reply, {
    threadId: thread.threadId,
    runId,
    after,
    seed: after,
  });
  return reply;
}
