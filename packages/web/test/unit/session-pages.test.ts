import type { SessionRecord } from '@agentlane/client';
import { describe, expect, it } from 'vitest';
import {
  appendPage,
  emptyPages,
  mergeFirstPage,
  rereadLoaded,
  withOpenThread,
} from '../../src/session-pages';

/** The sidebar's paged thread list: the first page polled, older pages loaded on demand, the open thread listed. */

/** Thread n was created at second n: the server lists them newest first. */
const thread = (n: number): SessionRecord =>
  ({
    id: `t${String(n).padStart(3, '0')}`,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  }) as SessionRecord;
/** The server's page of `size` rows starting below thread `below` (exclusive), out of threads 1..total. */
function serverPage(total: number, size: number, below = total + 1, deleted: number[] = []) {
  const all = Array.from({ length: total }, (_, i) => thread(total - i)).filter(
    (s) => !deleted.includes(Number(s.id.slice(1))),
  );
  const rest = all.filter((s) => Number(s.id.slice(1)) < below);
  const sessions = rest.slice(0, size);
  const last = sessions[sessions.length - 1];
  return { sessions, nextCursor: rest.length > size && last ? last.id : null };
}
const below = (cursor: string | null) => Number(cursor?.slice(1));
const ids = (sessions: SessionRecord[]) => sessions.map((s) => Number(s.id.slice(1)));

describe('the sidebar’s thread pages', () => {
  it('loads older pages until the list ends, each thread once', () => {
    let pages = mergeFirstPage(emptyPages, serverPage(7, 3));
    expect(ids(pages.sessions)).toEqual([7, 6, 5]);
    expect(pages.nextCursor).not.toBeNull();
    pages = appendPage(pages, serverPage(7, 3, below(pages.nextCursor)));
    pages = appendPage(pages, serverPage(7, 3, below(pages.nextCursor)));
    expect(ids(pages.sessions)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(pages.nextCursor).toBeNull();
  });

  it('keeps the older pages while the polled first page moves (new threads on top, one deleted)', () => {
    let pages = mergeFirstPage(emptyPages, serverPage(9, 3));
    pages = appendPage(pages, serverPage(9, 3, below(pages.nextCursor)));
    expect(ids(pages.sessions)).toEqual([9, 8, 7, 6, 5, 4]);
    // Two new threads (10, 11) and thread 8 deleted: the poll reads only the first page, thread 9 moved
    // out of it and stays listed; 8 is now below the first page, so it stays until the loaded pages are
    // read again (below).
    pages = mergeFirstPage(pages, serverPage(11, 3, undefined, [8]));
    expect(ids(pages.sessions)).toEqual([11, 10, 9, 8, 7, 6, 5, 4]);
    // "More" goes on where the loaded pages end, not where the new first page ends.
    pages = appendPage(pages, serverPage(11, 3, below(pages.nextCursor), [8]));
    expect(ids(pages.sessions)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(pages.nextCursor).toBeNull();
  });

  it('reads every loaded page again from the top, past the last loaded row, dropping deleted threads', async () => {
    let pages = mergeFirstPage(emptyPages, serverPage(9, 3));
    pages = appendPage(pages, serverPage(9, 3, below(pages.nextCursor)));
    const limits: number[] = [];
    // A server of 11 threads without thread 8, serving pages of at most 4 rows here.
    const list = async (q: { limit: number; cursor?: string }) => {
      limits.push(q.limit);
      return serverPage(11, Math.min(q.limit, 4), q.cursor ? below(q.cursor) : undefined, [8]);
    };
    pages = await rereadLoaded(pages, list);
    expect(ids(pages.sessions)).toEqual([11, 10, 9, 7, 6, 5, 4, 3]);
    expect(limits.length).toBe(2);
    pages = appendPage(pages, await list({ limit: 3, cursor: pages.nextCursor ?? '' }));
    expect(ids(pages.sessions)).toEqual([11, 10, 9, 7, 6, 5, 4, 3, 2, 1]);
    // Nothing older loaded: only the first page is read.
    const first = await rereadLoaded(mergeFirstPage(emptyPages, serverPage(9, 3)), list);
    expect(ids(first.sessions)).toEqual([11, 10, 9, 7]);
    expect(first.extended).toBe(false);
  });

  it('without older pages loaded, each poll is the first page as is', () => {
    const first = mergeFirstPage(emptyPages, serverPage(9, 3));
    const next = mergeFirstPage(first, serverPage(10, 3));
    expect(ids(next.sessions)).toEqual([10, 9, 8]);
    expect(next.nextCursor).toBe('t008');
  });

  it('always lists the open thread, first when it is on no loaded page', () => {
    const loaded = serverPage(9, 3).sessions;
    expect(ids(withOpenThread(loaded, thread(2)))).toEqual([2, 9, 8, 7]);
    expect(ids(withOpenThread(loaded, thread(8)))).toEqual([9, 8, 7]);
    expect(ids(withOpenThread(loaded, undefined))).toEqual([9, 8, 7]);
  });
});
