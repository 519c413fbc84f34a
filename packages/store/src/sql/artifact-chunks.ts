import { createHash } from 'node:crypto';
import type { ArtifactRef } from '@agentlane/contract';
import { type OpenArtifact, StoreError } from '../store.js';
import { decodeArtifact } from './artifact-encoding.js';
import type { SqlConn, SqlRow } from './sql-conn.js';

/**
 * Artifacts too large to hold in memory (the overflow of a tool's or a model's output, read from a file) are
 * stored in chunks: rows of `artifact_chunks` of this many bytes each (the last one shorter), and an
 * `artifacts` row with an empty content and `chunk_bytes` set. Writing and reading hold one chunk at a time.
 */
export const ARTIFACT_CHUNK_BYTES = 1024 * 1024;

const SHA256 = /^[0-9a-f]{64}$/;

type Tx = <T>(fn: (c: SqlConn) => Promise<T>) => Promise<T>;

function toRef(row: SqlRow): ArtifactRef {
  return {
    id: String(row.id),
    sha256: String(row.sha256),
    bytes: Number(row.bytes),
    contentType: String(row.content_type),
  };
}

/**
 * Stores `content` (read piece by piece) as a chunked artifact whose sha256 the caller names: it is checked
 * as the bytes go by, and a mismatch stores nothing (the chunks written are removed). Content-addressed: an
 * artifact already stored is not written again. Chunk boundaries are fixed, so two writers of the same
 * content write the same rows (ON CONFLICT DO NOTHING); the artifacts row is written last, so a reader never
 * sees an artifact whose chunks are still coming.
 */
export async function putChunkedArtifact(
  tx: Tx,
  content: AsyncIterable<Uint8Array>,
  contentType: string,
  sha256: string,
  now: string,
): Promise<ArtifactRef> {
  if (typeof sha256 !== 'string' || !SHA256.test(sha256))
    throw new StoreError('invalid', 'sha256 must be 64 lower-case hex digits');
  if (typeof contentType !== 'string' || contentType === '')
    throw new StoreError('invalid', 'contentType is required');
  const id = `sha256-${sha256}`;
  const stored = await tx((c) => c.all<SqlRow>('SELECT * FROM artifacts WHERE id = ?', [id]));
  if (stored[0]) return toRef(stored[0]);
  const hash = createHash('sha256');
  let bytes = 0;
  let idx = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const write = (chunk: Buffer) =>
    tx((c) =>
      c.run(
        'INSERT INTO artifact_chunks (id, idx, content) VALUES (?, ?, ?) ON CONFLICT (id, idx) DO NOTHING',
        [id, idx++, chunk],
      ),
    );
  for await (const piece of content) {
    const buf = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    hash.update(buf);
    bytes += buf.byteLength;
    pending.push(buf);
    pendingBytes += buf.byteLength;
    while (pendingBytes >= ARTIFACT_CHUNK_BYTES) {
      const all = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending);
      await write(all.subarray(0, ARTIFACT_CHUNK_BYTES));
      const rest = all.subarray(ARTIFACT_CHUNK_BYTES);
      pending = rest.byteLength > 0 ? [rest] : [];
      pendingBytes = rest.byteLength;
    }
  }
  if (pendingBytes > 0 || idx === 0) await write(Buffer.concat(pending));
  if (hash.digest('hex') !== sha256) {
    await tx((c) => c.run('DELETE FROM artifact_chunks WHERE id = ?', [id]));
    throw new StoreError('invalid', `the content does not have the sha256 ${sha256}`);
  }
  await tx((c) =>
    c.run(
      'INSERT INTO artifacts (id, sha256, bytes, content_type, content, created_at, chunk_bytes) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
      [id, sha256, bytes, contentType, Buffer.alloc(0), now, ARTIFACT_CHUNK_BYTES],
    ),
  );
  return { id, sha256, bytes, contentType };
}

/** An artifact row's reader: inline content is sliced, a chunked one read chunk by chunk. */
export function openArtifactRow(
  read: <T>(fn: (c: SqlConn) => Promise<T>) => Promise<T>,
  row: SqlRow,
): OpenArtifact {
  const ref = toRef(row);
  const chunkBytes =
    row.chunk_bytes === null || row.chunk_bytes === undefined ? null : Number(row.chunk_bytes);
  return {
    ref,
    async *read(start = 0, end = ref.bytes - 1) {
      if (end < start) return;
      if (chunkBytes === null) {
        const content = await decodeArtifact(row.content as Buffer, row.encoding, ref.id);
        yield new Uint8Array(content.buffer, content.byteOffset + start, end - start + 1);
        return;
      }
      for (let idx = Math.floor(start / chunkBytes); idx <= Math.floor(end / chunkBytes); idx++) {
        const found = await read((c) =>
          c.all<SqlRow>('SELECT content FROM artifact_chunks WHERE id = ? AND idx = ?', [ref.id, idx]),
        );
        const content = found[0]?.content as Buffer | undefined;
        if (!content) throw new StoreError('not_found', `chunk ${idx} of artifact ${ref.id} is missing`);
        const from = Math.max(0, start - idx * chunkBytes);
        const to = Math.min(content.byteLength, end - idx * chunkBytes + 1);
        yield new Uint8Array(content.buffer, content.byteOffset + from, to - from);
      }
    },
  };
}
