import { CANONICAL_EVENT_KINDS, type StreamEvent } from '@agentlane/contract';
import { EventSource } from 'eventsource';
import type { FollowedRow } from './sse-follower';

/** What a standard EventSource heard: rows in arrival order, and the `after` of each stream it opened. */
export interface StandardSubscriber {
  rows: FollowedRow[];
  /** `stream.opened.after` of every connection, in order: 0, then where each reconnect resumed. */
  opened: number[];
  close(): void;
}

/**
 * A standard EventSource (the `eventsource` package, which nobody here wrote) on a URL such as `…?after=0`:
 * when its connection drops it reconnects to that same URL with `Last-Event-ID`, after the server's `retry`.
 */
export function standardSubscriber(url: string): StandardSubscriber {
  const rows: FollowedRow[] = [];
  const opened: number[] = [];
  const source = new EventSource(url);
  const onRow = (e: { data: string }) => {
    const event = JSON.parse(e.data) as StreamEvent;
    if ('event' in event) {
      rows.push({ deliverySeq: event.deliverySeq, eventId: event.event.eventId, revision: event.revision });
    }
  };
  // The server names every frame by its type (`event: message.delta`): one listener per canonical kind.
  for (const kind of CANONICAL_EVENT_KINDS) source.addEventListener(kind, onRow);
  source.addEventListener('stream.opened', (e: { data: string }) => {
    const event = JSON.parse(e.data) as StreamEvent;
    if (event.type === 'stream.opened') opened.push(event.after);
  });
  return { rows, opened, close: () => source.close() };
}
