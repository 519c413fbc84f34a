import type { StreamEvent } from '@agentlane/contract';
import type { LaneSubscription } from '@agentlane/lane';
import type { FastifyReply } from 'fastify';
import type { ServerContext } from '../context.js';
import { HttpError } from '../errors.js';
import { SseConnection } from './sse-connection.js';

const PLAIN_DECIMAL = /^(0|[1-9][0-9]*)$/;

/**
 * The resume cursor: `Last-Event-ID: N` wins over `?after=N` (a standard EventSource opened on `?after=0`
 * reconnects to that same URL with the header: the header is where it is now); neither means from the start.
 * A cursor is a plain decimal integer (no sign, exponent, hex, or leading zero) and at most the thread's head:
 * anything else is refused with the head in the body (400 malformed, 409 beyond the head), never taken for a
 * position the stream would silently never reach.
 */
export function resumeCursor(
  query: { after?: string },
  lastEventId: string | undefined,
  head: number,
): number {
  const [raw, field] =
    lastEventId !== undefined
      ? [lastEventId, 'headers.last-event-id']
      : query.after !== undefined
        ? [query.after, 'query.after']
        : [undefined, ''];
  if (raw === undefined) return 0;
  const name = field === 'query.after' ? '?after' : 'Last-Event-ID';
  if (!PLAIN_DECIMAL.test(raw)) {
    throw new HttpError(
      'invalid_request',
      `${name} must be a plain decimal integer from 0 to the head (${head})`,
      field,
      { headDeliverySeq: head },
    );
  }
  // Compared as a BigInt: a plain decimal past 2^53 is still a position, one beyond the head.
  if (BigInt(raw) > BigInt(head)) {
    throw new HttpError(
      'conflict',
      `${name} ${raw.length > 20 ? `${raw.slice(0, 20)}…` : raw} is beyond the head of the thread (${head}): resume from ${head} or below`,
      field,
      { headDeliverySeq: head },
    );
  }
  return Number(raw);
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
