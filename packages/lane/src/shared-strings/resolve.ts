import type { JsonObject, JsonValue } from '@agentlane/contract';

/**
 * Large strings a stored frame shares with an earlier frame of the same run, stored once.
 *
 * Why: the built-in engine repeats a tool call's whole input in five or six frames (the SDK's tool-call part,
 * its approval request, the runtime's tool.start and approval, the audit row), so a 15 MB file write stored
 * 126 MB of frames and every pass over them (storing, hashing, the final translation) paid for it again.
 * For an engine that asks for it (EngineDriver.shareLargeStrings), the lane stores a string of at least
 * SHARED_MIN_CHARS where it first occurs in the run and names it there (`DECLARE_KEY`: id → its path in the
 * frame); a later frame holding the same string stores a placeholder instead and names it under `USE_KEY`
 * (`[id, ...path]`). RunTranslation puts the string back before the translator reads the frame. Sharing runs
 * after the frame's redaction and depth guard, on what is stored: a declared string is the stored string,
 * and the two keys never pass through a redactor. Frames without the keys read as they are.
 */
export const SHARED_MIN_CHARS = 64 * 1024;
/** How many shared strings a run's writer and reader keep, and how many characters all together. */
export const SHARED_KEEP = 8;
export const SHARED_KEEP_CHARS = 64 * 1024 * 1024;
/** Namespaced: no engine's frame has top-level keys like these. */
export const DECLARE_KEY = 'agentlane.sharedStrings';
export const USE_KEY = 'agentlane.sharedUses';

export type JsonPath = (string | number)[];

/** The strings a translation can refer to, in the order they were declared (oldest first). */
export type SharedTable = { order: string[]; values: Map<string, string> };

export const emptyShared = (): SharedTable => ({ order: [], values: new Map() });

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

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
    return { ...root, [head]: replaceAt(root[head] as JsonValue, rest, value) };
  }
  throw new Error(`shared string path ${JSON.stringify(path)} is not in the frame`);
}

function valueAt(root: JsonValue, path: readonly unknown[]): JsonValue | undefined {
  let at: JsonValue | undefined = root;
  for (const key of path) {
    if (Array.isArray(at) && typeof key === 'number') at = at[key];
    else if (isObject(at) && typeof key === 'string' && Object.hasOwn(at, key)) at = at[key];
    else return undefined;
  }
  return at;
}

/**
 * Forgets the oldest strings past SHARED_KEEP or SHARED_KEEP_CHARS, after a whole frame (its declarations,
 * then its uses) as the writer does: a use in a frame never names a string forgotten in the same frame.
 * Both sides see the same stored strings in the same order, so they forget the same ones.
 */
export function trimShared(table: SharedTable): void {
  let chars = 0;
  for (const text of table.values.values()) chars += text.length;
  while (table.order.length > SHARED_KEEP || (table.order.length > 1 && chars > SHARED_KEEP_CHARS)) {
    const id = table.order.shift() as string;
    chars -= table.values.get(id)?.length ?? 0;
    table.values.delete(id);
  }
}

/**
 * The frame as it was before sharing (strings put back, the two keys removed), updating `table` with its
 * declarations. Throws when a declaration or a use does not fit the frame or names an unknown id.
 */
export function resolveShared(frame: JsonValue, table: SharedTable): JsonValue {
  if (!isObject(frame) || (!Object.hasOwn(frame, DECLARE_KEY) && !Object.hasOwn(frame, USE_KEY)))
    return frame;
  const { [DECLARE_KEY]: declared, [USE_KEY]: uses, ...rest } = frame;
  let out: JsonValue = rest;
  if (declared !== undefined) {
    if (!isObject(declared)) throw new Error(`${DECLARE_KEY} is not an object`);
    for (const [id, path] of Object.entries(declared)) {
      const text = Array.isArray(path) ? valueAt(out, path) : undefined;
      if (typeof text !== 'string') throw new Error(`shared string ${id} is not a string of the frame`);
      table.order = [...table.order.filter((o) => o !== id), id];
      table.values.set(id, text);
    }
  }
  if (uses !== undefined) {
    if (!Array.isArray(uses)) throw new Error(`${USE_KEY} is not an array`);
    for (const use of uses) {
      const [id, ...path] = Array.isArray(use) ? use : [];
      const text = typeof id === 'string' ? table.values.get(id) : undefined;
      if (text === undefined) throw new Error(`shared string ${String(id)} is not known`);
      out = replaceAt(out, path as JsonPath, text);
    }
  }
  trimShared(table);
  return out;
}
