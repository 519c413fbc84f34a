import type { JsonValue } from '@agentlane/contract';
import type { TurnIO } from '@agentlane/engine-kit';
import {
  DECLARE_KEY,
  type JsonPath,
  replaceAt,
  SHARED_KEEP,
  SHARED_MIN_CHARS,
  USE_KEY,
} from '../translate/shared-strings.js';

/** Deeper than this the walk does not look (a tool input is the model's JSON: it may nest without bound). */
const MAX_DEPTH = 64;

/** The large strings of a frame with where they are, in document order. */
function largeStrings(frame: JsonValue): { path: JsonPath; text: string }[] {
  const found: { path: JsonPath; text: string }[] = [];
  const path: JsonPath = [];
  const walk = (value: JsonValue, depth: number): void => {
    if (typeof value === 'string') {
      if (value.length >= SHARED_MIN_CHARS) found.push({ path: [...path], text: value });
      return;
    }
    if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return;
    const entries: [string | number, JsonValue][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    for (const [key, child] of entries) {
      path.push(key);
      walk(child as JsonValue, depth + 1);
      path.pop();
    }
  };
  walk(frame, 0);
  return found;
}

/**
 * A turn's frames as the lane stores them: a large string already stored in an earlier frame of the turn is
 * replaced by a placeholder and named under `sharedUses` (translate/shared-strings.ts says why and how it is
 * read). Remembers the last SHARED_KEEP strings it declared, in the order the translator counts them; the
 * runtime's own objects are never changed (the containers on a replaced path are copied).
 */
export class StringSharer {
  /** Each remembered string → its id (a Map compares long strings by content). */
  private readonly ids = new Map<string, string>();
  private readonly order: string[] = [];
  private next = 0;

  /** The frame to store for `frame` (itself when it holds no large string). */
  share(frame: JsonValue): JsonValue {
    if (frame === null || typeof frame !== 'object' || Array.isArray(frame) || !('rt' in frame)) return frame;
    const large = largeStrings(frame);
    if (large.length === 0) return frame;
    const declared: Record<string, JsonPath> = {};
    const uses: (string | number)[][] = [];
    let out: JsonValue = frame;
    for (const { path, text } of large) {
      const id = this.ids.get(text);
      if (id === undefined) {
        declared[this.remember(text)] = path;
        continue;
      }
      uses.push([id, ...path]);
      out = replaceAt(out, path, { sharedString: id });
    }
    this.forget();
    return {
      ...(out as Record<string, JsonValue>),
      ...(Object.keys(declared).length > 0 ? { [DECLARE_KEY]: declared } : {}),
      ...(uses.length > 0 ? { [USE_KEY]: uses } : {}),
    };
  }

  private remember(text: string): string {
    const id = `s${++this.next}`;
    this.ids.set(text, id);
    this.order.push(text);
    return id;
  }

  /** Only after a whole frame, as the translator trims its table (translate/shared-strings.ts). */
  private forget(): void {
    while (this.order.length > SHARED_KEEP) this.ids.delete(this.order.shift() as string);
  }
}

/** `io` with its frames passed through a StringSharer of its own (one per turn). */
export function sharingStrings(io: TurnIO): TurnIO {
  const sharer = new StringSharer();
  return {
    emit: (frame, raw) => (raw === undefined ? io.emit(sharer.share(frame)) : io.emit(frame, raw)),
    signal: io.signal,
    awaitApproval: (id) => io.awaitApproval(id),
    awaitQuestion: (id) => io.awaitQuestion(id),
  };
}
