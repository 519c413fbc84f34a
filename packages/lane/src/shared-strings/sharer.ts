import type { JsonValue } from '@agentlane/contract';
import {
  DECLARE_KEY,
  emptyShared,
  type JsonPath,
  replaceAt,
  SHARED_MIN_CHARS,
  type SharedTable,
  trimShared,
  USE_KEY,
} from './resolve.js';

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
 * A run's frames as the lane stores them: a large string already stored in an earlier frame of the run is
 * replaced by a placeholder and named under USE_KEY (resolve.ts says why and how it is read). Keeps the table
 * RunTranslation keeps when it reads the stored frames back, trimmed the same way after each frame; the
 * frame given is never changed (the containers on a replaced path are copied).
 */
export class StringSharer {
  /** Each remembered string → its id (a Map compares long strings by content). */
  private readonly ids = new Map<string, string>();
  private readonly table: SharedTable = emptyShared();
  private next = 0;

  /** The frame to store for `frame` (itself when it holds no large string). */
  share(frame: JsonValue): JsonValue {
    if (frame === null || typeof frame !== 'object' || Array.isArray(frame)) return frame;
    if (Object.hasOwn(frame, DECLARE_KEY) || Object.hasOwn(frame, USE_KEY)) return frame;
    const large = largeStrings(frame);
    if (large.length === 0) return frame;
    const declared: Record<string, JsonPath> = {};
    const uses: (string | number)[][] = [];
    let out: JsonValue = frame;
    for (const { path, text } of large) {
      const id = this.ids.get(text);
      if (id === undefined) {
        const fresh = `s${++this.next}`;
        this.ids.set(text, fresh);
        this.table.order.push(fresh);
        this.table.values.set(fresh, text);
        declared[fresh] = path;
        continue;
      }
      uses.push([id, ...path]);
      out = replaceAt(out, path, { sharedString: id });
    }
    trimShared(this.table);
    for (const [text, id] of this.ids) if (!this.table.values.has(id)) this.ids.delete(text);
    return {
      ...(out as Record<string, JsonValue>),
      ...(Object.keys(declared).length > 0 ? { [DECLARE_KEY]: declared } : {}),
      ...(uses.length > 0 ? { [USE_KEY]: uses } : {}),
    };
  }
}
