import { deserialize, serialize } from 'node:v8';
import type { ChannelSnapshot } from '@agentlane/contract';
import { isPlainObject } from '../json.js';

/**
 * A head base's channels in V8's serialization format (`node:v8`), kept beside the JSON row by the SQLite
 * saver so that a cold get-latest in this runtime rebuilds the base without JSON.parse.
 *
 * Why: a cold read is one parse of the whole state, and V8 rebuilds the same objects from its own format in
 * about 40% of JSON.parse's time (a 250 KB conversation: 0.17 against 0.40 ms). The JSON row stays the
 * record every runtime reads; the image is a cache of it in the database, tied to the base's checkpoint id,
 * written with the full row and replaced with the next one. Anything wrong with an image (another Node's
 * format, a truncated blob, a value JSON cannot hold) makes the reader parse the JSON row instead.
 */
export function baseImage(channels: Record<string, ChannelSnapshot>): Buffer {
  return serialize(channels);
}

/**
 * The channels an image holds, or undefined when it cannot be read. The caller validates the result like a
 * parsed row, with the deep JSON walk (an image, unlike JSON text, could hold a Map or a Date).
 */
export function readBaseImage(bytes: Buffer): Record<string, ChannelSnapshot> | undefined {
  try {
    const value: unknown = deserialize(bytes);
    return isPlainObject(value) ? (value as Record<string, ChannelSnapshot>) : undefined;
  } catch {
    return undefined;
  }
}
