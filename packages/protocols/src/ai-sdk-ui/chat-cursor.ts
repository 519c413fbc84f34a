import { HttpError } from '@agentlane/server';
import type { EventStore, RunStore } from '@agentlane/store';
import { newestActiveRun } from '../active-run.js';

/** How a cursor is written: decimal digits, no sign, exponent, hex prefix, space or leading zero. */
const PLAIN_DECIMAL = /^(0|[1-9][0-9]*)$/;

const FIELD = 'query.after';

/**
 * `?after=` as the thread events route reads it (the server's resumeCursor, not exported): Number() would
 * also read `0x10`, `+5`, `05`, `1e2`, ` 5` and the empty string, none of them a deliverySeq this server wrote.
 */
export function assertCursorSpelling(raw: string | undefined): void {
  if (raw !== undefined && !PLAIN_DECIMAL.test(raw))
    throw new HttpError('invalid_request', 'after must be a plain decimal integer (a deliverySeq)', FIELD);
}

/**
 * The cursor as a deliverySeq, at most the chat's head: beyond it is the thread events route's 409 with the
 * head (compared as a BigInt, so a plain decimal past 2^53 is a position beyond the head, not a 400), never a
 * position the stream would silently wait for.
 */
export function cursorWithinHead(raw: string | undefined, head: number): number {
  if (raw === undefined) return 0;
  if (BigInt(raw) > BigInt(head))
    throw new HttpError(
      'conflict',
      `?after ${raw.length > 20 ? `${raw.slice(0, 20)}…` : raw} is beyond the head of the chat (${head}): resume from ${head} or below`,
      FIELD,
      { headDeliverySeq: head },
    );
  return Number(raw);
}

/**
 * The run a reconnect streams. A cursor is the `metadata.agentlane.deliverySeq` of the message the client
 * holds, always a row of that message's run (the `start` chunk carries none), so a cursor naming a row follows
 * the row's run, active or settled: the client gets the rest of that message and its `finish`. That holds also
 * when a newer run is active meanwhile: useChat continues the message its stream was cut in (same message id:
 * no reset), while the newer run's message (another id) would make it start a new message and leave the cut
 * one unfinished for good; the newer run is what a resume without a cursor (or with one of its rows) streams.
 * No cursor, 0, or a seq no stored row has: the chat's active run, if any (useChat's plain resume).
 */
export async function runToResume(
  store: EventStore & RunStore,
  threadId: string,
  after: number,
): Promise<string | undefined> {
  if (after > 0) {
    const [row] = await store.readEvents(threadId, after - 1, 1);
    if (row?.deliverySeq === after) return row.runId;
  }
  return (await newestActiveRun(store, threadId))?.runId;
}
