import type { StreamEvent } from '@agentlane/contract';
import type { Store } from '@agentlane/store';

/** How many of a thread's newest canonicalized runs a resuming stream hears the completion of again. */
export const COMPLETIONS_REPLAYED_ON_RESUME = 20;

/**
 * `run.canonicalized` is a live signal, not a row: a client that was away when a run completed resumes
 * "after N" and gets the rows it missed, but would keep holding the rows it had before as provisional. So a
 * resumed stream hears again the completion of the thread's newest canonicalized runs; the signal is
 * idempotent for a client that saw it already, and its order relative to the catch-up does not matter (it
 * only finalizes rows up to its `lastDeliverySeq`, and caught-up rows of a completed run arrive final).
 */
export async function replayCompletions(
  store: Store,
  threadId: string,
  deliver: (event: StreamEvent) => void,
): Promise<void> {
  const runs = (await store.listRuns(threadId))
    .filter((run) => run.canonicalizedAt !== null)
    .sort((a, b) => (a.canonicalizedAt! < b.canonicalizedAt! ? 1 : -1))
    .slice(0, COMPLETIONS_REPLAYED_ON_RESUME)
    .reverse();
  for (const run of runs) {
    const record = await store.getCompletion(run.runId);
    if (!record) continue;
    deliver({
      type: 'run.canonicalized',
      threadId,
      runId: run.runId,
      status: run.status,
      lastDeliverySeq: record.lastDeliverySeq,
      completedAt: record.completedAt,
    });
  }
}
