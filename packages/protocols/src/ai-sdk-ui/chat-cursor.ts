import type { EventStore, RunStore } from '@agentlane/store';
import { newestActiveRun } from '../active-run.js';

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
