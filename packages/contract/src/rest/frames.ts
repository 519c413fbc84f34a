import type { JsonValue } from '../json.js';

/** A native frame's raw sidecar: the bytes as the engine's wire carried them. */
export interface RawFrameView {
  /** Size of the raw bytes as received. */
  bytes: number;
  /** sha256 hex of the raw bytes as received. */
  sha256: string;
  storage: 'inline' | 'artifact' | 'omitted';
  /** The inline bytes when they decode as UTF-8. */
  text?: string;
  /** The inline bytes otherwise. */
  base64?: string;
  /** Larger raw frames live in an artifact: `GET /artifacts/:id`. */
  artifactId?: string;
}

/** One native frame of a run's source lane. */
export interface NativeFrameView {
  nativeSeq: number;
  receivedAt: string;
  /** The native frame as the adapter recorded it. */
  frame: JsonValue;
  /** Its raw sidecar, null when the adapter kept none. */
  raw: RawFrameView | null;
}

/** `GET /sessions/:id/runs/:runId/frames`: one page of a run's native frames, in nativeSeq order. */
export interface FramePage {
  frames: NativeFrameView[];
  /** Pass as `after` for the next page; null after the last frame. */
  nextAfter: number | null;
}
