import type { AuditableCall, AuditPage } from '@agentlane/contract';
import { useEffect, useState } from 'react';
import { getJson } from '../api';

export interface AuditFeed {
  calls: AuditableCall[];
  /** True until the last page arrived. */
  loading: boolean;
  error?: string;
}

/**
 * The session's ledger rows, every page (1,000 rows each, the route's maximum): the first page is shown as
 * soon as it arrives, the rest follow. Read again when `version` changes (the thread's run settled).
 */
export function useAudit(threadId: string, version: string): AuditFeed {
  const [feed, setFeed] = useState<AuditFeed>({ calls: [], loading: true });
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` asks for a new read
  useEffect(() => {
    const controller = new AbortController();
    (async () => {
      let calls: AuditableCall[] = [];
      let cursor: string | null = null;
      try {
        do {
          const query: string = `limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
          const page: AuditPage = await getJson<AuditPage>(
            `/sessions/${encodeURIComponent(threadId)}/audit?${query}`,
            controller.signal,
          );
          calls = calls.concat(page.calls);
          cursor = page.nextCursor;
          setFeed({ calls, loading: cursor !== null });
        } while (cursor);
      } catch (e) {
        if (!controller.signal.aborted)
          setFeed({ calls, loading: false, error: e instanceof Error ? e.message : String(e) });
      }
    })();
    return () => controller.abort();
  }, [threadId, version]);
  return feed;
}
