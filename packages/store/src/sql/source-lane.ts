import { createHash } from 'node:crypto';
import type { JsonValue } from '@agentlane/contract';
import {
  type FramePage,
  type RawSidecarLimits,
  type SourceFrameInput,
  type SourceFrameRecord,
  type SourceWatermark,
  StoreError,
} from '../store.js';
import { keepRaw } from './raw-sidecar.js';
import type { BulkColumn, SqlBackend, SqlConn, SqlParam } from './sql-conn.js';
import { Refusal, type WriteJob } from './write-queue.js';

const FRAME_COLUMNS: readonly BulkColumn[] = [
  { name: 'run_id', pgType: 'text' },
  { name: 'native_seq', pgType: 'bigint' },
  { name: 'received_at', pgType: 'text' },
  { name: 'frame', pgType: 'text' },
  { name: 'frame_sha256', pgType: 'text' },
];
const RAW_COLUMNS: readonly BulkColumn[] = [
  { name: 'run_id', pgType: 'text' },
  { name: 'native_seq', pgType: 'bigint' },
  { name: 'bytes', pgType: 'bigint' },
  { name: 'sha256', pgType: 'text' },
  { name: 'storage', pgType: 'text' },
  { name: 'content', pgType: 'bytea' },
  { name: 'artifact_id', pgType: 'text' },
];
/**
 * The watermark reads frames a page at a time, bounded in bytes too: 5,000 frames of 8 KB were 40 MB of
 * text per read, twice that while the next page came in, on every seal and every completion.
 */
const WATERMARK_PAGE = { limit: 5000, maxBytes: 4 * 1024 * 1024 } as const;
/**
 * Frames of at least this many characters of JSON are stored with their sha256 (hashed at append from the
 * text already serialised for the insert), which the watermark signs instead of reading the text back.
 * Smaller frames skip the hash: on the hot path of small frames hashing would cost more than it saves.
 */
export const HASHED_FRAME_CHARS = 4096;

/** The frame_sha256 of a frame's JSON text: its sha256 hex when large, else null (its text is signed). */
export function frameSha256(text: string): string | null {
  return text.length >= HASHED_FRAME_CHARS ? createHash('sha256').update(text).digest('hex') : null;
}

export type FrameInput = SourceFrameInput;

export function validateFrames(runId: string, frames: readonly FrameInput[]): void {
  if (typeof runId !== 'string' || runId === '') throw new StoreError('invalid', 'runId is required');
  if (!Array.isArray(frames)) throw new StoreError('invalid', 'frames must be an array');
  frames.forEach((f, i) => {
    if (typeof f?.receivedAt !== 'string')
      throw new StoreError('invalid', `frames[${i}].receivedAt is required`);
    if (f.frame === undefined) throw new StoreError('invalid', `frames[${i}].frame is required`);
    if (f.raw !== undefined && typeof f.raw !== 'string' && !(f.raw instanceof Uint8Array))
      throw new StoreError('invalid', `frames[${i}].raw must be a string or bytes`);
  });
}

/**
 * Appends frames with the next native seqs. On a sealed lane the frames are recorded as refused (committed
 * with the batch) and the caller gets source_sealed: a late frame is reported, never silently dropped.
 */
export function appendFramesJob(
  db: SqlBackend,
  runId: string,
  frames: readonly FrameInput[],
  now: () => string,
  rawLimits: RawSidecarLimits,
  expectedFirstSeq?: number,
): WriteJob<SourceFrameRecord[]> {
  return {
    rows: frames.length,
    threadIds: [],
    runIds: [runId],
    async exec(ctx) {
      const lane = ctx.lanes.get(runId);
      if (!lane) throw new StoreError('not_found', `run ${runId} not found`);
      if (lane.sealed) {
        const refusedAt = now();
        const reason = 'source lane sealed: the run was finalized before this frame arrived';
        for (const f of frames) {
          await ctx.conn.run(
            'INSERT INTO refused_frames (run_id, received_at, frame, reason, refused_at) VALUES (?, ?, ?, ?, ?)',
            [runId, f.receivedAt, JSON.stringify(f.frame), reason, refusedAt],
          );
        }
        return new Refusal(
          new StoreError(
            'source_sealed',
            `run ${runId}: ${frames.length} late frame(s) refused and recorded`,
          ),
        );
      }
      if (expectedFirstSeq !== undefined && lane.maxNativeSeq >= expectedFirstSeq + frames.length - 1) {
        const stored = await storedAlready(ctx.conn, runId, expectedFirstSeq, frames);
        if (stored) return stored;
      }
      const records: SourceFrameRecord[] = [];
      const params: SqlParam[][] = [];
      let raws: SqlParam[][] | null = null;
      for (const f of frames) {
        lane.maxNativeSeq += 1;
        records.push({ runId, nativeSeq: lane.maxNativeSeq, receivedAt: f.receivedAt, frame: f.frame });
        const text = JSON.stringify(f.frame);
        params.push([runId, lane.maxNativeSeq, f.receivedAt, text, frameSha256(text)]);
        if (f.raw !== undefined) {
          raws ??= [];
          raws.push(await keepRaw(ctx.conn, lane, runId, lane.maxNativeSeq, f.raw, rawLimits, now));
        }
      }
      await db.insertRows(ctx.conn, 'source_frames', FRAME_COLUMNS, params);
      if (raws) await db.insertRows(ctx.conn, 'source_frame_raw', RAW_COLUMNS, raws);
      if (records.length > 0) ctx.movedLanes.add(runId);
      return records;
    },
  };
}

/**
 * The records of `frames` when the lane holds exactly them from `firstSeq` on (same receive time, same
 * frame text): a retried batch whose first commit went through. Anything else is undefined.
 */
async function storedAlready(
  conn: SqlConn,
  runId: string,
  firstSeq: number,
  frames: readonly FrameInput[],
): Promise<SourceFrameRecord[] | undefined> {
  const rows = await conn.all<{ native_seq: number | string; received_at: string; frame: string }>(
    'SELECT native_seq, received_at, frame FROM source_frames WHERE run_id = ? AND native_seq >= ? AND native_seq < ? ORDER BY native_seq',
    [runId, firstSeq, firstSeq + frames.length],
  );
  if (rows.length !== frames.length) return undefined;
  const records: SourceFrameRecord[] = [];
  for (const [i, f] of frames.entries()) {
    const row = rows[i] as { native_seq: number | string; received_at: string; frame: string };
    if (row.received_at !== f.receivedAt || row.frame !== JSON.stringify(f.frame)) return undefined;
    records.push({ runId, nativeSeq: Number(row.native_seq), receivedAt: f.receivedAt, frame: f.frame });
  }
  return records;
}

const FRAME_ROWS =
  'SELECT native_seq, received_at, frame FROM source_frames WHERE run_id = ? AND native_seq > ? ORDER BY native_seq';

/**
 * A page bounded in bytes too: the running size of the `limit` next frames is summed over octet_length
 * alone (from the record or TOAST header: their text is not read), and the frames up to the last one that
 * starts under `maxBytes` are then read as a plain range of the primary key. Neither the database nor this
 * process holds the text of frames beyond the page.
 */
const pageByBytes = (columns: string, bytes: string): string => `SELECT ${columns} FROM source_frames
WHERE run_id = ? AND native_seq > ? AND native_seq <= (
  SELECT MAX(native_seq) FROM (
    SELECT native_seq, SUM(bytes) OVER (ORDER BY native_seq ROWS UNBOUNDED PRECEDING) - bytes AS before
    FROM (SELECT native_seq, ${bytes} AS bytes FROM source_frames
      WHERE run_id = ? AND native_seq > ? ORDER BY native_seq LIMIT ?) f
  ) p WHERE before < ?)
ORDER BY native_seq`;

const FRAME_PAGE_BY_BYTES = pageByBytes('native_seq, received_at, frame', 'octet_length(frame)');

/**
 * What the watermark signs of a frame: its stored hash when it has one (its text is not read: the CASE
 * yields NULL), else its text. A hashed frame counts as the 64 bytes of its hash towards the page's bound.
 */
export const SIGNED_FRAME_PAGE = pageByBytes(
  'native_seq, frame_sha256, CASE WHEN frame_sha256 IS NULL THEN frame END AS frame',
  'CASE WHEN frame_sha256 IS NULL THEN octet_length(frame) ELSE 64 END',
);

export function validateFramePage(page: FramePage | undefined): void {
  if (page === undefined) return;
  if (!Number.isInteger(page.limit) || page.limit < 1)
    throw new StoreError('invalid', 'page.limit must be an integer ≥ 1');
  if (page.maxBytes !== undefined && (!Number.isInteger(page.maxBytes) || page.maxBytes < 1))
    throw new StoreError('invalid', 'page.maxBytes must be an integer ≥ 1');
}

type FrameRow = { native_seq: number | string; received_at: string; frame: string };

/** A page of frame rows, their JSON still text. */
function frameTextPage(conn: SqlConn, runId: string, after: number, page: FramePage): Promise<FrameRow[]> {
  return page.maxBytes === undefined
    ? conn.all<FrameRow>(`${FRAME_ROWS} LIMIT ?`, [runId, after, page.limit])
    : conn.all<FrameRow>(FRAME_PAGE_BY_BYTES, [runId, after, runId, after, page.limit, page.maxBytes]);
}

type SignedRow = { native_seq: number | string; frame_sha256: string | null; frame: string | null };

/**
 * The watermark, re-computed from the frame rows every time, so a frame rewritten in place changes the
 * signature even though the count and max seq stay the same. A row is signed as `<seq>\n<frame text>\n`, or
 * as `<seq>\n#<frame_sha256>\n` when appendFrames stored its hash (no JSON text starts with `#`), so a large
 * frame's text is never read back. What a stale hash would hide (its text rewritten in place, a row deleted)
 * bumps the lane's `rewrites` (triggers, see frame-signature-migration.ts), signed last when not 0: a lane
 * never rewritten signs as it did before the hashes, its small frames by their text alone.
 */
export async function computeWatermark(conn: SqlConn, runId: string): Promise<SourceWatermark> {
  const lanes = await conn.all<{ sealed_at: string | null; rewrites: number | string }>(
    'SELECT sealed_at, rewrites FROM source_lanes WHERE run_id = ?',
    [runId],
  );
  const lane = lanes[0];
  if (!lane) throw new StoreError('not_found', `run ${runId} not found`);
  const hash = createHash('sha256');
  let maxNativeSeq = 0;
  const { limit, maxBytes } = WATERMARK_PAGE;
  for (;;) {
    const rows = await conn.all<SignedRow>(SIGNED_FRAME_PAGE, [
      runId,
      maxNativeSeq,
      runId,
      maxNativeSeq,
      limit,
      maxBytes,
    ]);
    // A page short of its limit may have stopped at its byte bound: only an empty one is the end.
    if (rows.length === 0) break;
    for (const row of rows) {
      maxNativeSeq = Number(row.native_seq);
      hash.update(
        row.frame_sha256 === null
          ? `${maxNativeSeq}\n${row.frame}\n`
          : `${maxNativeSeq}\n#${row.frame_sha256}\n`,
      );
    }
  }
  const rewrites = Number(lane.rewrites);
  if (rewrites !== 0) hash.update(`!rewrites ${rewrites}\n`);
  return { maxNativeSeq, signature: `sha256-${hash.digest('hex')}`, sealed: lane.sealed_at !== null };
}

export async function readFrameRows(
  conn: SqlConn,
  runId: string,
  after: number,
  page?: FramePage,
): Promise<SourceFrameRecord[]> {
  const rows =
    page === undefined
      ? await conn.all<FrameRow>(FRAME_ROWS, [runId, after])
      : await frameTextPage(conn, runId, after, page);
  return rows.map((r) => ({
    runId,
    nativeSeq: Number(r.native_seq),
    receivedAt: r.received_at,
    frame: JSON.parse(r.frame) as JsonValue,
  }));
}
