import { subscribeThread } from '@agentlane/client';
import type { FollowedRow } from './sse-follower';

/** The project's own client (`subscribeThread`: reconnects with backoff and the cursor it holds). */
export function clientSubscriber(
  baseUrl: string,
  threadId: string,
): { rows: FollowedRow[]; close(): Promise<void> } {
  const rows: FollowedRow[] = [];
  const abort = new AbortController();
  const done = (async () => {
    try {
      for await (const event of subscribeThread({ baseUrl }, threadId, {
        after: 0,
        signal: abort.signal,
        backoff: { initialMs: 100, maxMs: 500 },
      })) {
        if ('event' in event) {
          rows.push({
            deliverySeq: event.deliverySeq,
            eventId: event.event.eventId,
            revision: event.revision,
          });
        }
      }
    } catch {
      // aborted at the end
    }
  })();
  return {
    rows,
    async close() {
      abort.abort();
      await done;
    },
  };
}
