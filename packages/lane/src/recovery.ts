import type { JsonValue } from '@agentlane/contract';
import type { HarnessFrame } from '@agentlane/engine-kit';
import { type RunRecord, type Store, StoreError } from '@agentlane/store';
import type { PublishHub } from './hub';

export const ENGINE_LOST = 'engine process lost';

/**
 * Settles runs left `running` by a dead process: their engine turn is gone with it, so each gets a fatal
 * engine.error and a failed turn.ended in its source lane (so the re-translation shows why it ended) and is
 * finalized as failed, which enqueues its canonicalization. Returns the runs it settled.
 */
export async function recoverRunningRuns(
  store: Store,
  hub: PublishHub,
  pick: (run: RunRecord) => boolean,
): Promise<RunRecord[]> {
  const settled: RunRecord[] = [];
  for (const run of await store.listRunningRuns()) {
    if (!pick(run)) continue;
    const receivedAt = new Date().toISOString();
    const frames: HarnessFrame[] = [
      { harness: 'engine.error', message: ENGINE_LOST, fatal: true, detail: { previousOwner: run.ownerId } },
      { harness: 'turn.ended', outcome: 'failed', error: ENGINE_LOST },
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
    const record = await store.finalizeRun(run.runId, 'failed', ENGINE_LOST);
    hub.publishSignal(run.threadId, {
      type: 'run.status',
      threadId: run.threadId,
      runId: run.runId,
      status: record.status,
    });
    settled.push(record);
  }
  return settled;
}
