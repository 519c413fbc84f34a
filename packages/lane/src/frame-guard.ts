import type { JsonValue } from '@agentlane/contract';
import type { ContinuedValue, HarnessFrame, SecretRedactor, SplitFieldRedactor } from '@agentlane/engine-kit';

/**
 * How deep a native frame may nest (arrays and objects; the frame itself is level 1). Deeper frames are not
 * stored: the store's JSON.stringify (and every recursive reader after it: translators, redaction, JSONB)
 * would overflow the stack on a frame nested thousands of levels deep and lose the whole write batch. No
 * engine protocol comes near this.
 */
export const MAX_FRAME_DEPTH = 256;

/** How much of a dropped frame its warning quotes (characters of its raw text, else of its JSON). */
export const DROPPED_PREVIEW_CHARS = 1024;

/** The `reason` of the frame.dropped harness frame that replaces a frame nested too deep. */
export const FRAME_TOO_DEEP = 'frame.too_deep';

export interface GuardedFrame {
  frame: JsonValue;
  raw?: string | Uint8Array;
  /** Why the engine's frame was replaced (then `frame` is the harness frame saying so). */
  dropped?: string;
}

/**
 * What RunPipeline stores for a frame the engine emitted: a frame nested deeper than MAX_FRAME_DEPTH becomes a
 * `frame.dropped` harness frame (every translator turns it into a harness.warning) with the
 * reason and a redacted preview of the first 1 KB of its raw text; then secrets are redacted from the frame
 * and its raw bytes. Never recursive on the engine's frame before its depth is known to be bounded.
 *
 * `fields` (the run's, made of `redactor`): each string of the frame is also read after the ends of the same
 * field in the run's earlier frames, so a credential header an engine split across two frames
 * (`Authorization: Bear` | `er sk-…`) is not stored in the second one; the raw bytes then lose those values
 * too, or are not kept when they cannot be found in them.
 */
export function guardFrame(
  frame: JsonValue,
  raw?: string | Uint8Array,
  redactor?: SecretRedactor,
  fields?: SplitFieldRedactor,
): GuardedFrame {
  if (nestedDeeperThan(frame, MAX_FRAME_DEPTH)) {
    const reason = `nested deeper than ${MAX_FRAME_DEPTH} levels`;
    const rawBytes =
      raw === undefined ? undefined : typeof raw === 'string' ? Buffer.byteLength(raw) : raw.byteLength;
    const replacement: HarnessFrame = {
      harness: 'frame.dropped',
      reason: FRAME_TOO_DEEP,
      message: `a frame from the engine was dropped: ${reason}`,
      detail: {
        maxDepth: MAX_FRAME_DEPTH,
        preview: preview(frame, raw, redactor),
        ...(rawBytes !== undefined ? { rawBytes } : {}),
      },
    };
    return { frame: replacement as unknown as JsonValue, dropped: reason };
  }
  if (!redactor?.active) return raw === undefined ? { frame } : { frame, raw };
  const { frame: safe, continued } = fields
    ? fields.json(frame)
    : { frame: redactor.json(frame), continued: [] };
  const replaced = raw === undefined ? undefined : withContinued(raw, continued);
  const safeRaw = replaced === undefined ? undefined : redactor.raw(replaced);
  return safeRaw === undefined ? { frame: safe } : { frame: safe, raw: safeRaw };
}

/**
 * The raw bytes with each value the frame's earlier frames redacted (as JSON strings: the frame as its wire
 * wrote it) replaced by what it was stored as; undefined when one is not found in them (written some other
 * way) or they are not UTF-8: the frame is then kept without its raw copy.
 */
function withContinued(
  raw: string | Uint8Array,
  continued: ContinuedValue[],
): string | Uint8Array | undefined {
  if (continued.length === 0) return raw;
  let text: string;
  try {
    text = typeof raw === 'string' ? raw : new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return undefined;
  }
  for (const [original, stored] of continued) {
    const from = JSON.stringify(original);
    if (!text.includes(from)) return undefined;
    text = text.split(from).join(JSON.stringify(stored));
  }
  return typeof raw === 'string' ? text : new TextEncoder().encode(text);
}

/** Whether a JSON value nests arrays/objects deeper than `max` levels; iterative, stops at the first too deep. */
export function nestedDeeperThan(value: JsonValue, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) {
      if (child !== null && typeof child === 'object') {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * The first DROPPED_PREVIEW_CHARS of the frame's raw text (else of its JSON, written without recursion),
 * redacted. Redacted before it is cut, over a longer window, so a key crossing the cut is not half shown.
 */
function preview(frame: JsonValue, raw: string | Uint8Array | undefined, redactor?: SecretRedactor): string {
  const window = DROPPED_PREVIEW_CHARS * 4;
  let text: string;
  if (typeof raw === 'string') text = raw.slice(0, window);
  else if (raw !== undefined) text = new TextDecoder().decode(raw.subarray(0, window));
  else text = jsonPrefix(frame, window);
  const safe = redactor ? redactor.text(text) : text;
  return safe.slice(0, DROPPED_PREVIEW_CHARS);
}

/** The first `limit` characters (about) of a value's JSON, written with an explicit stack. */
function jsonPrefix(value: JsonValue, limit: number): string {
  type Item = { lit: string } | { value: JsonValue };
  const stack: Item[] = [{ value }];
  let out = '';
  while (stack.length > 0 && out.length < limit) {
    const item = stack.pop() as Item;
    if ('lit' in item) {
      out += item.lit;
      continue;
    }
    const v = item.value;
    if (v === null || typeof v !== 'object') {
      out += JSON.stringify(v) ?? 'null';
      continue;
    }
    const arr = Array.isArray(v);
    const entries: [string | null, JsonValue][] = arr
      ? v.map((x): [null, JsonValue] => [null, x])
      : Object.entries(v).map(([k, x]): [string, JsonValue] => [k, x as JsonValue]);
    out += arr ? '[' : '{';
    stack.push({ lit: arr ? ']' : '}' });
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i] as [string | null, JsonValue];
      stack.push({ value: x });
      if (k !== null) stack.push({ lit: `${JSON.stringify(k)}:` });
      if (i > 0) stack.push({ lit: ',' });
    }
  }
  return out.slice(0, limit);
}
