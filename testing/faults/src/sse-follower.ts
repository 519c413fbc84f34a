import type { StreamEvent } from '@agentlane/contract';
import { createParser } from 'eventsource-parser';

/** A row of a thread stream as the follower kept it. */
export interface FollowedRow {
  deliverySeq: number;
  eventId: string;
  revision: number;
}

/** What a follower heard of one run's signals: the run.status with the highest version, the completion. */
export interface FollowedRun {
  status?: string;
  statusVersion?: number;
  /** The status a run.canonicalized carried (the run's final status), once heard. */
  canonicalized?: string;
}

/**
 * Follows a thread's SSE stream the way a browser's EventSource does: when the connection ends it opens it
 * again with `Last-Event-ID` set to the last id it saw. Keeps every row in arrival order, duplicates
 * included, so a test can prove there were none.
 */
export class SseFollower {
  readonly rows: FollowedRow[] = [];
  /** runId → the run's signals as a client keeps them (a lower statusVersion heard later is ignored). */
  readonly runs = new Map<string, FollowedRun>();
  reconnects = 0;
  /** headDeliverySeq of the latest `stream.opened`. */
  openedHead: number | null = null;
  private lastId: string | null = null;
  private readonly abort = new AbortController();
  private readonly done: Promise<void>;

  constructor(private readonly url: () => string) {
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        if (this.lastId !== null) headers['last-event-id'] = this.lastId;
        const res = await fetch(this.url(), { headers, signal: this.abort.signal });
        if (res.ok && res.body) {
          const parser = createParser({
            onEvent: (e) => {
              if (e.id) this.lastId = e.id;
              const event = JSON.parse(e.data) as StreamEvent;
              if (event.type === 'stream.opened') this.openedHead = event.headDeliverySeq;
              if (event.type === 'run.status' || event.type === 'run.canonicalized') this.heardRun(event);
              if ('event' in event && typeof event.deliverySeq === 'number') {
                this.rows.push({
                  deliverySeq: event.deliverySeq,
                  eventId: event.event.eventId,
                  revision: event.revision,
                });
              }
            },
          });
          const decoder = new TextDecoder();
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            parser.feed(decoder.decode(chunk, { stream: true }));
          }
        }
      } catch {
        // the connection ended or the test closed it
      }
      if (this.abort.signal.aborted) return;
      this.reconnects++;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private heardRun(event: StreamEvent & { type: 'run.status' | 'run.canonicalized' }): void {
    const run = this.runs.get(event.runId) ?? {};
    this.runs.set(event.runId, run);
    if (event.type === 'run.canonicalized') {
      run.canonicalized = event.status;
      return;
    }
    const version = event.statusVersion ?? 0;
    if (run.statusVersion !== undefined && version <= run.statusVersion) return;
    run.status = event.status;
    run.statusVersion = version;
  }

  /** The highest deliverySeq seen so far (0 before any row). */
  head(): number {
    return this.rows.reduce((max, r) => Math.max(max, r.deliverySeq), 0);
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.done;
  }
}

/**
 * What a follower got, against a fresh full read of the same thread: rows missing from the stream, rows
 * delivered twice, rows out of order (a deliverySeq not above the one before it).
 */
export function compareStreams(
  followed: readonly FollowedRow[],
  fresh: readonly FollowedRow[],
): { lost: number; duplicated: number; reordered: number } {
  const seen = new Set<number>();
  let duplicated = 0;
  let reordered = 0;
  let last = 0;
  for (const row of followed) {
    if (seen.has(row.deliverySeq)) duplicated++;
    else if (row.deliverySeq < last) reordered++;
    seen.add(row.deliverySeq);
    last = Math.max(last, row.deliverySeq);
  }
  const lost = fresh.filter((r) => !seen.has(r.deliverySeq)).length;
  return { lost, duplicated, reordered };
}

/** Every row of a thread up to its head when read, by a fresh stream from the start. */
export async function readThread(url: string, timeoutMs = 20_000): Promise<FollowedRow[]> {
  const follower = new SseFollower(() => url);
  const deadline = Date.now() + timeoutMs;
  const caughtUp = () => follower.openedHead !== null && follower.head() >= follower.openedHead;
  while (!caughtUp() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await follower.close();
  if (!caughtUp()) throw new Error(`reading ${url} did not reach the head in ${timeoutMs} ms`);
  return follower.rows;
}
