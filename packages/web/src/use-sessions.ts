import type { SessionRecord } from '@agentlane/client';
import { useEffect, useState } from 'react';
import { client } from './api';

const POLL_MS = 2000;

/**
 * The thread list, read from the server and read again every two seconds (and when `refreshes` changes):
 * each thread's activity comes with it, so the list needs no stream per thread (a browser opens at most six
 * HTTP/1.1 connections to a server). The open thread's own stream is fresher and overrides its row.
 */
export function useSessions(
  search: string,
  refreshes: number,
): { sessions: SessionRecord[] | undefined; error?: string } {
  const [sessions, setSessions] = useState<SessionRecord[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: `refreshes` asks for a read now
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout>;
    const read = () => {
      client
        .listSessions(search ? { search, limit: 200 } : { limit: 200 }, { signal: controller.signal })
        .then((page) => {
          setSessions(page.sessions);
          setError(undefined);
        })
        .catch((e: unknown) => {
          if (!controller.signal.aborted) setError(e instanceof Error ? e.message : String(e));
        })
        .finally(() => {
          if (!controller.signal.aborted) timer = setTimeout(read, POLL_MS);
        });
    };
    // A short delay so typing in the search box sends one request, not one per key.
    timer = setTimeout(read, search ? 150 : 0);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [search, refreshes]);
  return error ? { sessions, error } : { sessions };
}
