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
 * A run stores its first `MAX_RUN_WARNINGS` harness.warning events; past them one `WARNINGS_LIMITED` warning
 * says so, and the run's end adds one `WARNINGS_SUPPRESSED` summary counting the rest by code.
 *
 * `RunTranslation` re-translates a recorded run (the CLI's `translate`, which drops frames deeper than
 * `MAX_FRAME_DEPTH` as the lane does: `nestedDeeperThan`). The lower-level pieces (the publish
 * hub, the run pipeline, the executor, the canonicalizer) are for tests and benchmarks only, under the
 * `@agentlane/lane/internal` subpath: they are not public API.
 */

export { MAX_FRAME_DEPTH, nestedDeeperThan } from './frame-guard.js';
export { createLane } from './lane.js';
export { ENGINE_LOST, SYSTEM_ANSWERER } from './recovery.js';
export { type BuiltEvent, type BuiltStep, RunTranslation } from './run-translation.js';
export {
  type AuditSink,
  type CreateRunInput,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_CANCEL_GRACE_MS,
  DEFAULT_ENGINE_IDLE_MS,
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_TURN_IDLE_MS,
  type Lane,
  type LaneListener,
  type LaneOptions,
  type LaneSubscription,
  type SubscriptionFlow,
} from './types.js';
export { MAX_RUN_WARNINGS, WARNINGS_LIMITED, WARNINGS_SUPPRESSED } from './warning-bound.js';
