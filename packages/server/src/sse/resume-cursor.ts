import { HttpError } from '../errors.js';

/** How a cursor is written: decimal digits, no sign, exponent, hex prefix, space or leading zero. */
const PLAIN_DECIMAL = /^(0|[1-9][0-9]*)$/;

/** Where a cursor came from: the request field an error names, and how its message calls it. */
export interface CursorSource {
  raw: string;
  field: string;
  name: string;
}

export const AFTER_QUERY = { field: 'query.after', name: '?after' } as const;
export const LAST_EVENT_ID = { field: 'headers.last-event-id', name: 'Last-Event-ID' } as const;

/**
 * A cursor is a plain decimal deliverySeq: Number() would also read `0x10`, `+5`, `05`, `1e2`, ` 5` and the
 * empty string, none of them a position this server wrote. `head`, when known, goes into the error body.
 */
export function assertCursorSpelling(source: CursorSource, head?: number): void {
  if (PLAIN_DECIMAL.test(source.raw)) return;
  const range = head === undefined ? '(a deliverySeq)' : `from 0 to the head (${head})`;
  throw new HttpError(
    'invalid_request',
    `${source.name} must be a plain decimal integer ${range}`,
    source.field,
    head === undefined ? undefined : { headDeliverySeq: head },
  );
}

/**
 * A well-spelled cursor as a deliverySeq at most `head`: beyond it is 409 with the head (compared as a
 * BigInt, so a plain decimal past 2^53 is a position beyond the head, not a 400), never a position the
 * stream would silently wait for. `of` names what the head belongs to in the message.
 */
export function cursorWithinHead(source: CursorSource, head: number, of: string): number {
  assertCursorSpelling(source, head);
  if (BigInt(source.raw) > BigInt(head)) {
    const shown = source.raw.length > 20 ? `${source.raw.slice(0, 20)}…` : source.raw;
    throw new HttpError(
      'conflict',
      `${source.name} ${shown} is beyond the head of the ${of} (${head}): resume from ${head} or below`,
      source.field,
      { headDeliverySeq: head },
    );
  }
  return Number(source.raw);
}

/**
 * The thread stream's resume cursor: `Last-Event-ID: N` wins over `?after=N` (a standard EventSource opened
 * on `?after=0` reconnects to that same URL with the header: the header is where it is now); neither means
 * from the start.
 */
export function resumeCursor(
  query: { after?: string },
  lastEventId: string | undefined,
  head: number,
): number {
  if (lastEventId !== undefined)
    return cursorWithinHead({ raw: lastEventId, ...LAST_EVENT_ID }, head, 'thread');
  if (query.after !== undefined)
    return cursorWithinHead({ raw: query.after, ...AFTER_QUERY }, head, 'thread');
  return 0;
}
