/**
 * How a replay (catch-up from a cursor) is read for one SSE stream: in pages sized by what this stream's
 * frames weigh, each page written out and drained to the socket before the next is read. 64 clients
 * replaying a thread of 8 KB rows in pages of about 4 MiB, each read while up to 1 MiB of the last page was
 * still unsent, took the server to 2.6 GB: every waiting page outlived the young generation and piled up as
 * old-space garbage, and /health waited 9–11 s behind the serialization of whole pages.
 */
export const REPLAY_PAGE = {
  /** Rows of the first read, before any frame of the stream was weighed (the lane keeps rows near 64 KiB). */
  firstRows: 4,
  /** What a page may weigh as sent (frame characters), if its rows are no larger than the last page's. */
  bytes: 256 * 1024,
  /**
   * Rows per read at most. The store reads by count, so a page is sized from the page before it: a thread
   * whose rows grow at once (small deltas, then 64 KiB tool results) can still read this many large rows.
   */
  maxRows: 256,
} as const;

/** Counts what one stream's replay reads, page by page (the SubscriptionFlow half that is arithmetic). */
export class ReplayPacer {
  /** The largest frame written since the last page was read (replay or live). */
  #largest = 0;
  /** The largest frame of the last page that wrote any; 0 before the first. */
  #weight = 0;
  /** Rows the last read asked for. */
  #lastRows = 0;
  /** Rows of the page being delivered that the subscription has not handed over yet. */
  #rowsLeft = 0;
  #pages = 0;

  /** Pages read so far (what a test sees of how a replay was read). */
  get pages(): number {
    return this.#pages;
  }

  /** A frame was written: it weighs in the next page's size. */
  sent(chars: number): void {
    if (chars > this.#largest) this.#largest = chars;
  }

  /**
   * The subscription is about to read a page: as many rows as fit the page's weight if each were as large
   * as the largest of the last page, at most twice the last page's rows (a page of small rows says nothing
   * about the rows after it, so the count grows as pages prove light, not at once), at most maxRows.
   */
  nextPage(): number {
    if (this.#largest > 0) this.#weight = this.#largest;
    this.#largest = 0;
    const grown = this.#lastRows === 0 ? REPLAY_PAGE.firstRows : 2 * this.#lastRows;
    const rows =
      this.#weight === 0
        ? grown
        : Math.max(1, Math.min(REPLAY_PAGE.maxRows, grown, Math.floor(REPLAY_PAGE.bytes / this.#weight)));
    this.#lastRows = rows;
    this.#rowsLeft = rows;
    this.#pages += 1;
    return rows;
  }

  /**
   * One row of the page was handed over; true when it was the page's last, i.e. when a full page is done and
   * the subscription reads the next one right after (a short page ends the replay: no read follows it).
   */
  rowDelivered(): boolean {
    if (this.#rowsLeft <= 0) return false;
    this.#rowsLeft -= 1;
    return this.#rowsLeft === 0;
  }
}
