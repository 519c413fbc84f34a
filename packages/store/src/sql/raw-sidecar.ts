import { type RawFrameRecord, type RawFrameStorage, type RawSidecarLimits, StoreError } from '../store.js';
import { sha256HexOf } from './sorted-keys-json.js';
import type { SqlConn, SqlParam } from './sql-conn.js';
import type { LaneState } from './write-queue.js';

/**
 * The bounded raw sidecar of native frames: the bytes of a frame as the engine's wire carried them (before
 * parsing), so a translator bug can be diagnosed against exactly what arrived. Bounded twice:
 * - per frame: up to `inlineMaxBytes` are kept in the sidecar row; larger raw goes to the content-addressed
 *   artifact store (same transaction) and the row keeps its id;
 * - per run: once the bytes kept (inline + artifact) would pass `maxBytesPerRun`, later raw is `omitted`:
 *   only its size and sha256 are kept, so the gap is explicit, never silent.
 * The parsed frame in source_frames stays the truth the watermark signs; the sidecar is evidence beside it.
 */
export async function keepRaw(
  conn: SqlConn,
  lane: LaneState,
  runId: string,
  nativeSeq: number,
  raw: string | Uint8Array,
  limits: RawSidecarLimits,
  now: () => string,
): Promise<SqlParam[]> {
  const bytes =
    typeof raw === 'string'
      ? Buffer.from(raw, 'utf8')
      : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const sha256 = sha256HexOf(bytes);
  let storage: RawFrameStorage = 'omitted';
  let content: Buffer | null = null;
  let artifactId: string | null = null;
  if (lane.rawBytes + bytes.byteLength <= limits.maxBytesPerRun) {
    lane.rawBytes += bytes.byteLength;
    if (bytes.byteLength <= limits.inlineMaxBytes) {
      storage = 'inline';
      content = bytes;
    } else {
      storage = 'artifact';
      artifactId = `sha256-${sha256}`;
      await conn.run(
        'INSERT INTO artifacts (id, sha256, bytes, content_type, content, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
        [artifactId, sha256, bytes.byteLength, 'application/octet-stream', bytes, now()],
      );
    }
  }
  return [runId, nativeSeq, bytes.byteLength, sha256, storage, content, artifactId];
}

export function validateRawLimits(limits: RawSidecarLimits): RawSidecarLimits {
  for (const key of ['inlineMaxBytes', 'maxBytesPerRun'] as const) {
    const v = limits[key];
    if (!Number.isInteger(v) || v < 0)
      throw new StoreError('invalid', `raw sidecar ${key} must be an integer ≥ 0`);
  }
  return limits;
}

export async function readRawRows(conn: SqlConn, runId: string, after: number): Promise<RawFrameRecord[]> {
  const rows = await conn.all<{
    native_seq: number | string;
    bytes: number | string;
    sha256: string;
    storage: RawFrameStorage;
    content: Buffer | null;
    artifact_id: string | null;
  }>(
    'SELECT native_seq, bytes, sha256, storage, content, artifact_id FROM source_frame_raw WHERE run_id = ? AND native_seq > ? ORDER BY native_seq',
    [runId, after],
  );
  return rows.map((r) => ({
    runId,
    nativeSeq: Number(r.native_seq),
    bytes: Number(r.bytes),
    sha256: r.sha256,
    storage: r.storage,
    content: r.content ? new Uint8Array(r.content.buffer, r.content.byteOffset, r.content.byteLength) : null,
    artifactId: r.artifact_id,
  }));
}
