import type { StreamEvent } from '@agentlane/contract';
import type { LaneSubscription } from '@agentlane/lane';
import type { FastifyReply } from 'fastify';
import type { ServerContext } from '../context.js';
import { SseConnection } from './sse-connection.js';

export interface StreamHooks {
  /** Only events this returns true for are sent (stream.opened always is). */
  filter?: (event: StreamEvent) => boolean;
  /** Sees every event after it was written. */
  onSent?: (event: StreamEvent) => void;
}

/**
 * Hijacks the reply and streams a thread into it: the lane's subscription (stream.opened, replay after the
 * cursor, then live rows and run signals; no gap, no duplicate) plus this server's own wire-only events.
 */
export async function openThreadStream(
  ctx: ServerContext,
  reply: FastifyReply,
  threadId: string,
  after: number,
  hooks: StreamHooks = {},
): Promise<{ conn: SseConnection; subscription: LaneSubscription | null }> {
  // Taken before the reply is hijacked, so one over the cap is still a plain 429.
  const release = ctx.streamSlots.acquire(reply.request);
  reply.hijack();
  const conn = new SseConnection(reply.raw, ctx.sse, ctx.frames);
  conn.threadId = threadId;
  conn.open();
  ctx.connections.add(conn);
  conn.onClose(() => ctx.connections.delete(conn));
  conn.onClose(release);
  const filter = hooks.filter ?? (() => true);
  const deliver = (event: StreamEvent): void => {
    if (conn.closed || (event.type !== 'stream.opened' && !filter(event))) return;
    if (conn.send(event)) hooks.onSent?.(event);
  };
  try {
    const subscription = await ctx.lane.subscribe(threadId, after, deliver, conn);
    conn.onClose(() => subscription.close());
    conn.onClose(ctx.hub.subscribe(threadId, deliver));
    return { conn, subscription };
  } catch (err) {
    // Headers are sent already: the only honest thing left is to end the stream with a retry hint.
    reply.log.error({ err }, 'thread stream failed');
    conn.close('shutdown');
    return { conn, subscription: null };
  }
}
