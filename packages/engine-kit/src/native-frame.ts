import type { JsonValue } from '@agentlane/contract';

/** One native frame as stored in a run's source lane, before any translation. */
export interface NativeFrameRecord {
  runId: string;
  /** 1-based, per run, assigned by the lane in arrival order. */
  nativeSeq: number;
  /** ISO 8601, assigned by agentlane when the frame arrived; becomes the `ts` of the events it produces. */
  receivedAt: string;
  /** The frame exactly as the engine sent it (or a harness frame, see harness-frame.ts). */
  frame: JsonValue;
}
