import type { SessionRecord } from '@agentlane/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import { client } from './api';
import {
  appendPage,
  emptyPages,
  FIRST_PAGE,
  MORE_PAGE,
  mergeFirstPage,
  rereadLoaded,
  type SessionPages,
  withOpenThread,
} from './session-pages';

const POLL_MS = 2000;
/** Every this many polls (and on a refresh), the older pages loaded are read again too. */
const FULL_EVERY = 15;

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export interface SessionsList {
  sessions: SessionRecord[] | undefined;
  error?: string;
  /** Older threads exist: `loadMore` reads the next page of them. */
  hasMore: boolean;
  loadingMore: boolean;
  loadMore(): void;
}

/**
 * The thread list, read from the server: the first page again every two seconds, older pages when the user
 * asks for more and again every 30 s and when `refreshes` changes (a rename, a new thread). Each thread's activity comes with it, so the
 * list needs no stream per thread (a browser opens at most six HTTP/1.1 connections to a server). The open
 * thread is always listed (read on its own when it is not on a loaded page); its own stream is fresher and
 * overrides its row where it knows better.
 */
export function useSessions(search: string, refreshes: number, openThreadId?: string): SessionsList {
  const [pages, setPages] = useState<SessionPages | undefined>();
  const [open, setOpen] = useState<SessionRecord | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loadingMore, setLoadingMore] = useState(false);
  const current = useRef<SessionPages>(emptyPages);
  const searched = useRef(search);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `refreshes` asks for a read now
  useEffect(() => {
    // Another search is another list: its older pages start again from its first page.
    if (searched.current !== search) {
      searched.current = search;
      current.current = emptyPages;
    }
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout>;
    let reads = 0;
    const read = async () => {
      try {
        const list = (q: { limit: number; cursor?: string }) =>
          client.listSessions({ ...q, ...(search ? { search } : {}) }, { signal: controller.signal });
        if (reads++ % FULL_EVERY === 0) {
          const before = current.current;
          const reread = await rereadLoaded(before, list);
          // An older page loaded meanwhile would be lost: the next poll reads all again instead.
          if (current.current === before) current.current = reread;
          else reads = 0;
        } else {
          const page = await list({ limit: FIRST_PAGE });
          current.current = mergeFirstPage(current.current, page);
        }
        setPages(current.current);
        setError(undefined);
        // The open thread on no loaded page (older, or new since this page was read): read on its own. A
        // thread that is gone is simply not listed.
        if (openThreadId && !current.current.sessions.some((s) => s.id === openThreadId))
          setOpen(
            await client.getSession(openThreadId, { signal: controller.signal }).catch(() => undefined),
          );
      } catch (e) {
        if (!controller.signal.aborted) setError(message(e));
      } finally {
        if (!controller.signal.aborted) timer = setTimeout(read, POLL_MS);
      }
    };
    // A short delay so typing in the search box sends one request, not one per key.
    timer = setTimeout(read, search ? 150 : 0);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [search, refreshes, openThreadId]);

  const loadMore = useCallback(() => {
    const cursor = current.current.nextCursor;
    if (!cursor || loadingMore) return;
    setLoadingMore(true);
    client
      .listSessions(search ? { search, limit: MORE_PAGE, cursor } : { limit: MORE_PAGE, cursor })
      .then((page) => {
        current.current = appendPage(current.current, page);
        setPages(current.current);
      })
      .catch((e: unknown) => setError(message(e)))
      .finally(() => setLoadingMore(false));
  }, [search, loadingMore]);

  const sessions =
    pages &&
    (search ? pages.sessions : withOpenThread(pages.sessions, open?.id === openThreadId ? open : undefined));
  return {
    sessions,
    ...(error ? { error } : {}),
    hasMore: (pages?.nextCursor ?? null) !== null,
    loadingMore,
    loadMore,
  };
}
