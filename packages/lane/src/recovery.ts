import type { JsonValue } from '@agentlane/contract';
import type { HarnessFrame } from '@agentlane/engine-kit';
import {
  type EventStore,
  type InteractionAnswerRecord,
  type InteractionStore,
  RELEASED_LEASE,
  type RunRecord,
  type RunStore,
  type SourceLaneStore,
  StoreError,
} from '@agentlane/store';
import type { RunExecutorOptions } from './executor-state.js';
import type { PublishHub } from './hub.js';

/** The start of the error of every run settled because its process went away. */
export const ENGINE_LOST = 'engine process lost';

/** The `error` of a run whose owner stopped renewing its lease (or handed it back at shutdown). */
export function engineLostError(ownerId: string | null, released = false): string {
  const who = ownerId ?? 'an unknown process';
  return released
    ? `${ENGINE_LOST}: ${who} shut down before the run finished`
    : `${ENGINE_LOST}: ${who} stopped renewing its lease`;
}

/** Rows of a lost run read at a time while its open approvals and questions are looked for. */
export const RECOVERY_PAGE_ROWS = 512;

/** Who resolves the open approvals and questions of a run whose process is gone. */
export const SYSTEM_ANSWERER = 'system';

/**
 * Approvals and questions of the run that were requested and never resolved (from the run's committed
 * canonical rows): nobody can answer them now, so they are resolved as cancelled by `system`, unless a
 * client's answer was recorded first (accepted while the run's lease still held, its process already gone):
 * the first answer recorded wins, as everywhere, so the stream says what the client was told was accepted.
 */
async function openInteractions(
  store: EventStore & InteractionStore,
  run: RunRecord,
): Promise<HarnessFrame[]> {
  const recorded = new Map<string, InteractionAnswerRecord>();
  for (const a of await store.pendingAnswers(run.runId)) recorded.set(`${a.kind}:${a.targetId}`, a);
  const answerOf = (kind: string, id: string) => recorded.get(`${kind}:${id}`)?.answer as object | undefined;
  const approvals = new Set<string>();
  const questions = new Set<string>();
  // A page of the run's latest rows at a time (as the final pass reads them): a run of a million rows, or of
  // rows of megabytes each, read whole took the recovering process past its heap. Only the open ids are kept.
  // Pages come in the order of the latest revisions, not of first delivery: resolutions are gathered apart
  // and taken off at the end, so the open ids do not depend on the order the rows come in.
  const resolvedApprovals = new Set<string>();
  const resolvedQuestions = new Set<string>();
  const query = { threadId: run.threadId, runId: run.runId };
  for (let after = 0; ; ) {
    const rows = await store.latestEventsPage(query, after, RECOVERY_PAGE_ROWS);
    for (const { event } of rows) {
      if (event.kind === 'approval.requested') approvals.add(event.payload.approvalId);
      else if (event.kind === 'approval.resolved') resolvedApprovals.add(event.payload.approvalId);
      else if (event.kind === 'question.requested') questions.add(event.payload.questionId);
      else if (event.kind === 'question.resolved') resolvedQuestions.add(event.payload.questionId);
    }
    const last = rows.at(-1);
    if (!last || rows.length < RECOVERY_PAGE_ROWS) break;
    after = last.deliverySeq;
  }
  for (const id of resolvedApprovals) approvals.delete(id);
  for (const id of resolvedQuestions) questions.delete(id);
  const cancelled = { outcome: 'cancelled', answeredBy: SYSTEM_ANSWERER } as const;
  return [
    ...[...approvals].map(
      (approvalId): HarnessFrame => ({
        harness: 'approval.answered',
        approvalId,
        ...((answerOf('approval', approvalId) as { outcome: 'selected' | 'cancelled' }) ?? cancelled),
      }),
    ),
    ...[...questions].map(
      (questionId): HarnessFrame => ({
        harness: 'question.answered',
        questionId,
        ...((answerOf('question', questionId) as { outcome: 'answered' | 'declined' | 'cancelled' }) ??
          cancelled),
      }),
    ),
  ];
}

/**
 * Settles a run whose process is gone (the caller holds it: claimed through takeExpiredRun): its engine turn
 * went with that process, so its open approvals and questions are cancelled by `system`, and a fatal
 * engine.error and a failed turn.ended go into its source lane (so the re-translation shows why it ended);
 * then it is finalized as failed, which enqueues its canonicalization, and its run.status is published.
 */
export async function settleLostRun(
  store: EventStore & SourceLaneStore & RunStore & InteractionStore,
  hub: PublishHub,
  run: RunRecord,
  error: string,
): Promise<RunRecord> {
  const receivedAt = new Date().toISOString();
  const frames: HarnessFrame[] = [
    ...(await openInteractions(store, run)),
    { harness: 'engine.error', message: error, fatal: true, detail: { previousOwner: run.ownerId } },
    { harness: 'turn.ended', outcome: 'failed', error },
  ];
  try {
    await store.appendFrames(
      run.runId,
      frames.map((frame) => ({ receivedAt, frame: frame as unknown as JsonValue })),
    );
  } catch (err) {
    // Already sealed means a finalize got halfway; the store recorded the refusal, settling still applies.
    if (!(err instanceof StoreError && err.code === 'source_sealed')) throw err;
  }
  const record = await store.finalizeRun(run.runId, 'failed', error);
  hub.publishSignal(run.threadId, {
    type: 'run.status',
    threadId: run.threadId,
    runId: run.runId,
    status: record.status,
    statusVersion: record.statusVersion,
  });
  return record;
}

/**
 * Takes and settles each expired run `skip` does not exclude: exactly one process takes each one
 * (takeExpiredRun), settles it as failed naming the lost process, and has it canonicalized.
 */
export async function settleExpiredRuns(
  o: RunExecutorOptions,
  expired: readonly RunRecord[],
  skip: (runId: string) => boolean,
): Promise<void> {
  for (const run of expired) {
    if (skip(run.runId)) continue;
    const taken = await o.store.takeExpiredRun(run.runId, o.ownerId, o.leaseMs);
    if (!taken) continue;
    const error = engineLostError(taken.ownerId, taken.leaseUntil === RELEASED_LEASE);
    await settleLostRun(o.store, o.hub, taken, error);
    o.log?.('info', `settled run ${run.runId} of a process that is gone (${taken.ownerId ?? '?'})`);
    o.canonicalizer.kick();
  }
}
