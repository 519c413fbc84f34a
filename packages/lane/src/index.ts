/**
 * @agentlane/lane: the canonical lane.
 *
 * `createLane({ store, drivers, ownerId })` returns the facade the server calls:
 * - `createRun` / `cancelRun`: the durable commands run.create and run.cancel (idempotency keys honoured).
 * - `answerApproval` / `answerQuestion`: written to the store first, then delivered to the waiting turn.
 * - `subscribe(threadId, after, listener)`: `stream.opened`, then every committed row after `after` (replay,
 *   then live; no gap, no duplicate; every run of the thread, including later ones), plus `run.status` and
 *   `run.canonicalized` signals.
 * - `start()`: the run executor (it holds a renewed lease on each run it executes, and settles the runs whose
 *   lease expired, i.e. of dead processes, failed with an "engine process lost: <owner> ..." error) and the
 *   canonicalization outbox worker. `stop({ graceMs })`: waits for running turns, then hands them back.
 *
 * Lower-level pieces (the publish hub, the run pipeline, the canonicalizer) are exported for tests and
 * benchmarks.
 */

export { type CanonicalizeOutcome, Canonicalizer, type CanonicalizerOptions } from './canonicalizer.js';
export { deriveEventId } from './event-id.js';
export { RunExecutor, type RunExecutorOptions } from './executor.js';
export {
  type HubOptions,
  type HubSignal,
  type HubSubscription,
  PublishHub,
  rowToStreamEvent,
} from './hub.js';
export { createLane } from './lane.js';
export { DEFAULT_ARTIFACT_THRESHOLD_BYTES, Materializer, truncatePreview } from './offload.js';
export { ENGINE_LOST, engineLostError, SYSTEM_ANSWERER, settleLostRun } from './recovery.js';
export { RunPipeline, type RunPipelineOptions } from './run-pipeline.js';
export { type BuiltEvent, type BuiltStep, RunTranslation } from './run-translation.js';
export { stableJson } from './stable-json.js';
export * from './types.js';
