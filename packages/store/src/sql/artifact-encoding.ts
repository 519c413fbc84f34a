import { promisify } from 'node:util';
import { deflate, inflate, constants as zlib } from 'node:zlib';
import { StoreError } from '../store.js';

const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

/**
 * Inline artifacts are stored deflated (zlib format: its checksum also catches a damaged row) when that
 * saves at least a tenth: a long model answer moved out of its message.completed is text, stored next to
 * the deltas that already hold it, and compression is what keeps the database near the size of the text.
 * Both directions run on libuv's thread pool, never on the event loop. Ids, sha256 and `bytes` are the
 * uncompressed content's: a reader never sees the stored form.
 */
export const DEFLATE = 'deflate';
const MIN_BYTES = 4096;

/** What to store for `content`: deflated when it pays, else as it is (encoding null). */
export async function encodeArtifact(content: Buffer): Promise<{ stored: Buffer; encoding: string | null }> {
  if (content.byteLength < MIN_BYTES) return { stored: content, encoding: null };
  const packed = await deflateAsync(content, { level: zlib.Z_DEFAULT_COMPRESSION });
  return packed.byteLength <= content.byteLength * 0.9
    ? { stored: packed, encoding: DEFLATE }
    : { stored: content, encoding: null };
}

/** The content of an inline artifact row from its stored form. */
export async function decodeArtifact(stored: Buffer, encoding: unknown, id: string): Promise<Buffer> {
  if (encoding === null || encoding === undefined) return stored;
  if (encoding !== DEFLATE)
    throw new StoreError('invalid', `artifact ${id} has an unknown encoding ${String(encoding)}`);
  try {
    return await inflateAsync(stored);
  } catch (err) {
    throw new StoreError('invalid', `artifact ${id} does not inflate: ${(err as Error).message}`);
  }
}
