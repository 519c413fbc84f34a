import type { StreamEvent } from '@agentlane/contract';
import type { LaneSubscription } from '@agentlane/lane';
import type { FastifyReply } from 'fastify';
import type { ServerContext } from '../context';
import { HttpError } from '../errors';
import { SseConnection } from './sse-connection';

/** The resume cursor: `?after=N` wins over `Last-Event-ID: N`; neither means from the start. */
export function resumeCursor(query: { after?: number }, lastEventId: string | undefined): number {
  if (query.after !== undefined) return query.after;
  if (lastEventId === undefined) return 0;
  const n = Number(lastEventId);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new HttpError(
      'invalid_request',
      'Last-Event-ID must be a non-negative integer',
      'headers.last-event-id',
    );
  }
  return n;
}

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
  reply.hijack();
  const conn = new SseConnection(reply.raw, ctx.sse, ctx.frames);
  conn.open();
  ctx.connections.add(conn);
  conn.onClose(() => ctx.connections.delete(conn));
  const filter = hooks.filter ?? (() => true);
  const deliver = (event: StreamEvent): void => {
    if (conn.closed || (event.type !== 'stream.opened' && !filter(event))) return;
    if (conn.send(event)) hooks.onSent?.(event);
  };
  try {
    const subscription = await ctx.lane.subscribe(threadId, after, deliver);
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
