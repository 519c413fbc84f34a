/** A page of a cursor-paged list: `nextCursor` null on the last page. */
export interface CursorPage {
  nextCursor: string | null;
}

/**
 * A page body's `nextCursor`: a string, or null on the last page (an empty string counts as null);
 * undefined when it is neither, so the caller can refuse a body that is not such a page.
 */
export function nextCursorOf(body: Record<string, unknown>): string | null | undefined {
  const cursor = body.nextCursor;
  if (cursor === null || cursor === '') return null;
  return typeof cursor === 'string' ? cursor : undefined;
}

/**
 * Fetches every page, first to last, handing each to `onPage` (which says how many rows it had). A server
 * that answers a cursor it gave before would be paged through forever: the second time a cursor comes,
 * `repeated(cursor)` is thrown; so is `empty(n)` after MAX_EMPTY_PAGES pages in a row with no rows.
 */
export async function forEachPage<P extends CursorPage>(
  fetchPage: (cursor: string | null) => Promise<P>,
  onPage: (page: P) => number,
  repeated: (cursor: string) => Error,
  empty: (pages: number) => Error = (pages) => new Error(`${pages} empty pages in a row; stopped paging`),
): Promise<void> {
  const followed = new Set<string>();
  let cursor: string | null = null;
  let emptyInARow = 0;
  do {
    const page = await fetchPage(cursor);
    // A page with no rows that still names a next one: a server that does so again and again (new cursors
    // each time, a probe's) would be paged through forever, printing nothing.
    emptyInARow = onPage(page) === 0 ? emptyInARow + 1 : 0;
    cursor = page.nextCursor;
    if (cursor !== null) {
      if (followed.has(cursor)) throw repeated(cursor);
      if (emptyInARow >= MAX_EMPTY_PAGES) throw empty(emptyInARow);
      followed.add(cursor);
    }
  } while (cursor !== null);
}

/** Empty pages in a row that end the paging: a real server's page holds rows unless it is the last. */
export const MAX_EMPTY_PAGES = 10;
