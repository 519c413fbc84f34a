// @agentlane/lane/internal: the lane's lower-level pieces, for tests and benchmarks only. Not public API:
// these change with the lane's implementation.

export { type CanonicalizeOutcome, Canonicalizer, type CanonicalizerOptions } from './canonicalizer.js';
export { deriveEventId } from './event-id.js';
export { RunExecutor, type RunExecutorOptions } from './executor.js';
export { type FinalPassPaging, writeFinalPass } from './final-pass.js';
export {
  DROPPED_PREVIEW_CHARS,
  FRAME_TOO_DEEP,
  type GuardedFrame,
  guardFrame,
  MAX_FRAME_DEPTH,
  nestedDeeperThan,
} from './frame-guard.js';
export {
  type HubOptions,
  type HubSignal,
  type HubSubscription,
  PublishHub,
  rowToStreamEvent,
} from './hub.js';
export { DEFAULT_ARTIFACT_THRESHOLD_BYTES, Materializer, truncatePreview } from './offload.js';
export { engineLostError, settleLostRun } from './recovery.js';
export { RunPipeline, type RunPipelineOptions } from './run-pipeline.js';
export { stableJson } from './stable-json.js';
