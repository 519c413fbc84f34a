import type { JsonValue } from '@agentlane/contract';

export interface SourceFrameRecord {
  runId: string;
  nativeSeq: number;
  receivedAt: string;
  frame: JsonValue;
}

/** A native frame to append. `raw`: the frame as the engine's wire carried it, kept in the raw sidecar. */
export interface SourceFrameInput {
  receivedAt: string;
  frame: JsonValue;
  raw?: string | Uint8Array;
}

/**
 * Where a frame's raw bytes live: `inline` in the sidecar row (up to `inlineMaxBytes`), an `artifact`
 * (content-addressed, larger ones), or `omitted` once the run's raw budget is spent (size + sha256 only).
 */
export type RawFrameStorage = 'inline' | 'artifact' | 'omitted';

/** The raw sidecar of one native frame. */
export interface RawFrameRecord {
  runId: string;
  nativeSeq: number;
  /** Size of the raw bytes as received (also when omitted). */
  bytes: number;
  /** sha256 hex of the raw bytes as received. */
  sha256: string;
  storage: RawFrameStorage;
  /** The bytes when stored inline; null otherwise (an artifact is read with getArtifact(artifactId)). */
  content: Uint8Array | null;
  artifactId: string | null;
}

/** Bounds of the raw sidecar: per frame inline, per run in total (inline + artifact bytes kept). */
export interface RawSidecarLimits {
  inlineMaxBytes: number;
  maxBytesPerRun: number;
}

export const DEFAULT_RAW_SIDECAR_LIMITS: RawSidecarLimits = {
  inlineMaxBytes: 8 * 1024,
  maxBytesPerRun: 16 * 1024 * 1024,
};

/** The watermark of a run's source lane: proves nothing changed between translation and completion. */
export interface SourceWatermark {
  maxNativeSeq: number;
  /**
   * Content signature over every frame (sha256 over nativeSeq + frame bytes, or the sha256 of a large frame
   * stored at append, in order; plus the lane's count of frame rows rewritten or deleted).
   */
  signature: string;
  sealed: boolean;
}

/** A late frame refused after sealing. */
export interface RefusedFrameRecord {
  receivedAt: string;
  frame: JsonValue;
  reason: string;
}

/** How frames are appended. */
export interface AppendFramesOptions {
  /**
   * The native seq the writer expects its first frame to get (it is the lane's only writer and knows its
   * end). When the lane already holds these very frames at these seqs (received at the same time, the same
   * content) they are returned as stored and not appended again: the retry of a commit whose outcome was
   * unknown (the connection broke during COMMIT) stores nothing twice.
   */
  expectedFirstSeq?: number;
}

/**
 * A bounded read of frames (a run's whole source can be hundreds of megabytes): at most `limit` frames, and
 * none after the one that brings the UTF-8 bytes of their stored JSON text to `maxBytes` (the first frame
 * comes whatever its size, so a read always moves on).
 */
export interface FramePage {
  limit: number;
  maxBytes?: number;
}

/** A run's source lane: the native frames as the engine sent them, sealed once the run settles. */
export interface SourceLaneStore {
  /** Appends native frames in order; refused with source_sealed (and recorded) once the lane is sealed. */
  appendFrames(
    runId: string,
    frames: SourceFrameInput[],
    options?: AppendFramesOptions,
  ): Promise<SourceFrameRecord[]>;
  /** Frames with nativeSeq > afterNativeSeq, in order: all of them, or one `page`. */
  readFrames(runId: string, afterNativeSeq?: number, page?: FramePage): Promise<SourceFrameRecord[]>;
  /** The raw sidecar of frames appended with `raw`, nativeSeq > afterNativeSeq, in order. */
  readRawFrames(runId: string, afterNativeSeq?: number): Promise<RawFrameRecord[]>;
  sealSource(runId: string): Promise<SourceWatermark>;
  readWatermark(runId: string): Promise<SourceWatermark>;
  /** Late frames refused after sealing, kept for inspection. */
  listRefusedFrames(runId: string): Promise<RefusedFrameRecord[]>;
}
