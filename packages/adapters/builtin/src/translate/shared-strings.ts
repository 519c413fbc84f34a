import type { JsonObject, JsonValue } from '@agentlane/contract';
import { isObject } from '@agentlane/engine-kit';

/**
 * Large strings a built-in frame shares with an earlier frame of the same turn, stored once.
 *
 * Why: one tool call repeats its whole input in five or six frames (the SDK's tool-call part, its approval
 * request, the runtime's tool.start and approval, the audit row), so a 15 MB file write stored 110 MB of frames
 * and every pass over them (redaction, storing, hashing, the final translation) paid for it six times. A string
 * of at least SHARED_MIN_CHARS is stored where it first occurs, and the frame names it there
 * (`sharedStrings`: id → its path in the frame); a later frame holding the same string stores a placeholder
 * instead and names it under `sharedUses` (`[id, ...path]`). The translator puts the string back before it
 * reads the frame, so the events are what the whole frames made. Frames without these keys (every frame stored
 * before them) read as before.
 */
export const SHARED_MIN_CHARS = 64 * 1024;
/** How many shared strings a turn's writer and the translator keep: the oldest is forgotten past it. */
export const SHARED_KEEP = 8;
export const DECLARE_KEY = 'sharedStrings';
export const USE_KEY = 'sharedUses';

export type JsonPath = (string | number)[];

/** The strings a translation can refer to, in the order they were declared (oldest first). */
export type SharedTable = { order: string[]; values: Record<string, string> };

export const EMPTY_SHARED: SharedTable = { order: [], values: {} };

/** `root` with the value at `path` replaced: the containers on the path are copied, nothing is mutated. */
export function replaceAt(root: JsonValue, path: readonly (string | number)[], value: JsonValue): JsonValue {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(root) && typeof head === 'number' && head >= 0 && head < root.length) {
    const copy = [...root];
    copy[head] = replaceAt(root[head] as JsonValue, rest, value);
    return copy;
  }
  if (isObject(root) && typeof head === 'string' && Object.hasOwn(root, head)) {
    return { ...root, [head]: replaceAt((root as JsonObject)[head] as JsonValue, rest, value) };
  }
  throw new Error(`shared string path ${JSON.stringify(path)} is not in the frame`);
}

function valueAt(root: JsonValue, path: readonly unknown[]): JsonValue | undefined {
  let at: JsonValue | undefined = root;
  for (const key of path) {
    if (Array.isArray(at) && typeof key === 'number') at = at[key];
    else if (isObject(at) && typeof key === 'string' && Object.hasOwn(at, key)) at = (at as JsonObject)[key];
    else return undefined;
  }
  return at;
}

/** The table with `id` → `text` added last (a re-declared id moves to the end). */
function declare(table: SharedTable, id: string, text: string): SharedTable {
  return { order: [...table.order.filter((o) => o !== id), id], values: { ...table.values, [id]: text } };
}

/**
 * The table without its oldest strings past SHARED_KEEP. Done after a whole frame (its declarations, then its
 * uses), as the writer forgets only after a whole frame: a use in a frame never names a string it forgot.
 */
function trim(table: SharedTable): SharedTable {
  if (table.order.length <= SHARED_KEEP) return table;
  const order = table.order.slice(table.order.length - SHARED_KEEP);
  return { order, values: Object.fromEntries(order.map((id) => [id, table.values[id] as string])) };
}

/**
 * The frame as its writer made it (shared strings put back, the two keys removed) and the table after its
 * declarations. Throws when a declaration or a use does not fit the frame or names an unknown id: the caller
 * reports the frame as malformed.
 */
export function resolveShared(
  frame: JsonValue,
  table: SharedTable,
): { frame: JsonValue; table: SharedTable } {
  if (!isObject(frame) || (!Object.hasOwn(frame, DECLARE_KEY) && !Object.hasOwn(frame, USE_KEY)))
    return { frame, table };
  const { [DECLARE_KEY]: declared, [USE_KEY]: uses, ...rest } = frame as JsonObject;
  let out: JsonValue = rest;
  let next = table;
  if (declared !== undefined) {
    if (!isObject(declared)) throw new Error(`${DECLARE_KEY} is not an object`);
    for (const [id, path] of Object.entries(declared)) {
      const text = Array.isArray(path) ? valueAt(out, path) : undefined;
      if (typeof text !== 'string') throw new Error(`shared string ${id} is not a string of the frame`);
      next = declare(next, id, text);
    }
  }
  if (uses !== undefined) {
    if (!Array.isArray(uses)) throw new Error(`${USE_KEY} is not an array`);
    for (const use of uses) {
      const [id, ...path] = Array.isArray(use) ? use : [];
      const text = typeof id === 'string' && Object.hasOwn(next.values, id) ? next.values[id] : undefined;
      if (text === undefined) throw new Error(`shared string ${String(id)} is not known`);
      out = replaceAt(out, path as JsonPath, text);
    }
  }
  return { frame: out, table: trim(next) };
}
