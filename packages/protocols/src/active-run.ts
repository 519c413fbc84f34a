import type { RunRecord, RunStore } from '@agentlane/store';

const ACTIVE = new Set(['queued', 'running']);

/** A run that has not settled: its stream is still going (or about to start). */
export function isActive(run: RunRecord): boolean {
  return ACTIVE.has(run.status);
}

/** The thread's newest run that has not settled, the one a protocol's reconnect follows. */
export async function newestActiveRun(store: RunStore, threadId: string): Promise<RunRecord | undefined> {
  return (await store.listRuns(threadId)).filter(isActive).pop();
}
