import type { JsonObject, RunCanonicalizedEvent, RunStatusEvent } from '@agentlane/contract';
import type { OutboxStore, RunStore } from '@agentlane/store';

// The hub's run signals (run.status, run.canonicalized): checking one heard from another process, and reading
// back from the store the ones a thread's subscribers may have missed.

export type HubSignal = RunStatusEvent | RunCanonicalizedEvent;

const RUN_STATUSES = new Set(['queued', 'running', 'completed', 'failed']);

/** A signal heard from another process, checked before it reaches a subscriber. */
export function isHubSignal(value: JsonObject): value is JsonObject & HubSignal {
  if (typeof value.threadId !== 'string' || typeof value.runId !== 'string') return false;
  if (typeof value.status !== 'string' || !RUN_STATUSES.has(value.status)) return false;
  if (value.type === 'run.status') return true;
  return (
    value.type === 'run.canonicalized' &&
    typeof value.lastDeliverySeq === 'number' &&
    typeof value.completedAt === 'string'
  );
}

/** Clock difference between processes allowed when deciding whether a settled run is news to a thread. */
const CLOCK_SKEW_MS = 5000;

/** What the hub knows of a thread it serves: since when, and the latest signal of each run handed out. */
export interface ThreadWatch {
  /** Date.now() when the thread got its first subscriber here. */
  readonly since: number;
  /** runId → the highest statusVersion handed to the thread's subscribers. */
  readonly statusVersions: Map<string, number>;
  /** runId → the lastDeliverySeq of the latest run.canonicalized handed out. */
  readonly completions: Map<string, number>;
}

/** The run.canonicalized signal of a stored completion record. */
function canonicalized(
  threadId: string,
  record: { runId: string; lastDeliverySeq: number; completedAt: string },
  statusOf: ReadonlyMap<string, HubSignal['status']>,
): RunCanonicalizedEvent {
  return {
    type: 'run.canonicalized',
    threadId,
    runId: record.runId,
    status: statusOf.get(record.runId) ?? 'completed',
    lastDeliverySeq: record.lastDeliverySeq,
    completedAt: record.completedAt,
  };
}

/**
 * The signals a served thread may have missed while the store could not hear other processes: every run whose
 * stored status is newer than the last one handed out, and every completion not handed out yet, from runs that
 * settled while the thread was served (older ones were never news to its subscribers). The hub drops the ones
 * its subscribers had already.
 */
export async function missedSignals(
  store: RunStore & OutboxStore,
  threadId: string,
  watch: ThreadWatch,
): Promise<HubSignal[]> {
  const [runs, completions] = await Promise.all([store.listRuns(threadId), store.listCompletions(threadId)]);
  const recent = (iso: string | null): boolean =>
    iso === null || Date.parse(iso) >= watch.since - CLOCK_SKEW_MS;
  const signals: HubSignal[] = [];
  const statusOf = new Map<string, HubSignal['status']>();
  for (const run of runs) {
    statusOf.set(run.runId, run.status);
    if (!watch.statusVersions.has(run.runId) && !recent(run.endedAt)) continue;
    signals.push({
      type: 'run.status',
      threadId,
      runId: run.runId,
      status: run.status,
      statusVersion: run.statusVersion,
    });
  }
  for (const record of completions) {
    if (!watch.completions.has(record.runId) && !recent(record.completedAt)) continue;
    signals.push(canonicalized(threadId, record, statusOf));
  }
  return signals;
}

/** The run.canonicalized signal of every canonicalized run of a thread (two reads, not one per run). */
export async function completionSignals(
  store: RunStore & OutboxStore,
  threadId: string,
): Promise<RunCanonicalizedEvent[]> {
  const [completions, runs] = await Promise.all([store.listCompletions(threadId), store.listRuns(threadId)]);
  const statusOf = new Map(runs.map((run) => [run.runId, run.status]));
  return completions.map((record) => canonicalized(threadId, record, statusOf));
}
