import { isAscii } from 'node:buffer';
import type { ChannelSnapshot } from '@agentlane/contract';
import { isPlainObject } from '../json.js';

/**
 * Where the long lists of a full row's `channels` text lie, so a cold reader can parse the row in pieces.
 *
 * Why: a JavaScript string over ~128 KiB is allocated in V8's large-object space, and building one (from the
 * row's UTF-8 or a Buffer) costs ~3× what the same bytes cost as a few smaller strings; at 500 turns that
 * was a third of a cold get-latest. The reader takes the row as bytes and decodes and parses the skeleton
 * and each chunk of a long list on its own. The text itself is unchanged (what JSON.stringify of the
 * key-sorted map gives), so other readers of the table see the same row.
 */
export interface BaseLayout {
  /** Byte length of the row's text: a layout that does not describe these bytes is ignored. */
  bytes: number;
  lists: ListLayout[];
}

/** One accumulating list: bytes [start, end) are its items between `[` and `]`, split at the commas `cuts`. */
export interface ListLayout {
  channel: string;
  start: number;
  end: number;
  cuts: number[];
}

/** A list whose items' text is under this stays in the skeleton; larger ones are cut into chunks of about it. */
const CHUNK_BYTES = 64 * 1024;

/** The list an `append` grows (docs/checkpoint-storage.md), or undefined when the channel does not accumulate. */
export function appendTarget(snapshot: ChannelSnapshot | undefined): unknown[] | undefined {
  const value = snapshot?.value;
  if (!isPlainObject(value)) return undefined;
  if (snapshot?.kind === 'topic' && value.accumulate === true && Array.isArray(value.items))
    return value.items;
  if (snapshot?.kind === 'binary_op_aggregate' && value.reducer === 'append' && Array.isArray(value.value))
    return value.value;
  return undefined;
}

/**
 * `JSON.stringify(channels)` (keys already sorted), and the layout of its long lists when it has any. Each
 * list is written item by item, which is the same text JSON.stringify gives for the list.
 */
export function stringifyFull(channels: Record<string, ChannelSnapshot>): { text: string; layout?: string } {
  const pieces: string[] = [];
  const lists: ListLayout[] = [];
  let bytes = 0;
  const push = (piece: string) => {
    pieces.push(piece);
    bytes += Buffer.byteLength(piece);
  };
  let first = true;
  for (const [name, snapshot] of Object.entries(channels)) {
    push(`${first ? '{' : ','}${JSON.stringify(name)}:`);
    first = false;
    const split = splitAtList(snapshot);
    if (!split) {
      push(JSON.stringify(snapshot));
      continue;
    }
    push(`${split.before}[`);
    const list: ListLayout = { channel: name, start: bytes, end: bytes, cuts: [] };
    let chunk = 0;
    split.items.forEach((item, i) => {
      const text = JSON.stringify(item) ?? 'null';
      if (i > 0) {
        if (chunk >= CHUNK_BYTES) {
          list.cuts.push(bytes);
          chunk = 0;
        }
        push(',');
      }
      push(text);
      chunk += text.length;
    });
    list.end = bytes;
    if (list.end - list.start > CHUNK_BYTES) lists.push(list);
    push(`]${split.after}`);
  }
  push(first ? '{}' : '}');
  const text = pieces.join('');
  return lists.length > 0
    ? { text, layout: JSON.stringify({ bytes, lists } satisfies BaseLayout) }
    : { text };
}

/** The snapshot's text around its accumulating list (found by a marker that must occur once), if it has one. */
function splitAtList(
  snapshot: ChannelSnapshot,
): { before: string; after: string; items: unknown[] } | undefined {
  const items = appendTarget(snapshot);
  if (!items || items.length === 0) return undefined;
  const marker = `\u0000list:${Math.random().toString(36).slice(2)}`;
  const text = JSON.stringify(snapshot, (_key, value: unknown) => (value === items ? marker : value));
  const quoted = JSON.stringify(marker);
  const at = text.indexOf(quoted);
  if (at < 0 || text.indexOf(quoted, at + 1) >= 0) return undefined;
  return { before: text.slice(0, at), after: text.slice(at + quoted.length), items };
}

/**
 * Bytes [from, to) as a string. ASCII (most of a conversation's JSON) decodes as latin1, a plain copy into a
 * one-byte string: with UTF-8 decoding a cold read at 500 turns took a quarter longer (JSON.parse of the
 * result included). A piece with any other byte is decoded as UTF-8.
 */
function decode(bytes: Buffer, from: number, to = bytes.length): string {
  const piece = bytes.subarray(from, to);
  return piece.toString(isAscii(piece) ? 'latin1' : 'utf8');
}

/**
 * Bytes [from, to) of a list's items as the text of a JSON array, `[` + items + `]`, built in a reused
 * buffer and decoded once: a template literal would make a cons string that JSON.parse first flattens into
 * a second copy, and a cold read's allocations are what the young-generation GC pauses land in.
 */
function listText(bytes: Buffer, from: number, to: number): string {
  const size = to - from + 2;
  const framed = size <= SCRATCH_MAX ? scratchOf(size) : Buffer.allocUnsafe(size);
  framed[0] = OPEN;
  bytes.copy(framed, 1, from, to);
  framed[size - 1] = CLOSE;
  return decode(framed, 0, size);
}

/** A list piece up to this size is framed in the shared scratch buffer; a larger one gets its own. */
const SCRATCH_MAX = 1024 * 1024;
let scratch = Buffer.alloc(0);

function scratchOf(size: number): Buffer {
  if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.max(size, 2 * CHUNK_BYTES));
  return scratch;
}

const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const COMMA = 0x2c; // ,

/**
 * The parsed row from its bytes and layout, or undefined when the layout does not fit them (the caller then
 * parses the whole text). Every cut is checked to fall on the delimiter the layout says, and each list must
 * come back empty in the skeleton; what is returned is validated by the saver like any parsed row.
 */
export function parseWithLayout(bytes: Buffer, layoutText: string): unknown {
  try {
    const layout = JSON.parse(layoutText) as BaseLayout;
    if (layout.bytes !== bytes.length || !Array.isArray(layout.lists)) return undefined;
    const skeleton: string[] = [];
    let at = 0;
    for (const list of layout.lists) {
      if (!(list.start > at) || !(list.end >= list.start) || list.end >= bytes.length) return undefined;
      if (bytes[list.start - 1] !== OPEN || bytes[list.end] !== CLOSE) return undefined;
      skeleton.push(decode(bytes, at, list.start));
      at = list.end;
    }
    skeleton.push(decode(bytes, at));
    const channels = JSON.parse(skeleton.join('')) as Record<string, ChannelSnapshot>;
    for (const list of layout.lists) {
      const target = appendTarget(channels[list.channel]);
      if (target?.length !== 0) return undefined;
      let from = list.start;
      for (const cut of [...list.cuts, list.end]) {
        if (!(cut > from) || cut > list.end || (cut < list.end && bytes[cut] !== COMMA)) return undefined;
        for (const item of JSON.parse(listText(bytes, from, cut)) as unknown[]) target.push(item);
        from = cut + 1;
      }
    }
    return channels;
  } catch {
    return undefined;
  }
}
