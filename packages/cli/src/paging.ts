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
 * Fetches every page, first to last, handing each to `onPage`. A server that answers a cursor it gave
 * before would be paged through forever: the second time a cursor comes, `repeated(cursor)` is thrown.
 */
export async function forEachPage<P extends CursorPage>(
  fetchPage: (cursor: string | null) => Promise<P>,
  onPage: (page: P) => void,
  repeated: (cursor: string) => Error,
): Promise<void> {
  const followed = new Set<string>();
  let cursor: string | null = null;
  do {
    const page = await fetchPage(cursor);
    onPage(page);
    cursor = page.nextCursor;
    if (cursor !== null) {
      if (followed.has(cursor)) throw repeated(cursor);
      followed.add(cursor);
    }
  } while (cursor !== null);
}
