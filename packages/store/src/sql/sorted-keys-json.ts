import { hash } from 'node:crypto';

/**
 * JSON with object keys sorted (not RFC 8785: numbers and escapes as JSON.stringify writes them; the contract's
 * `canonicalJson` is the RFC 8785 one, for fingerprints), so equal values always give equal text (content comparison, body hashes).
 * Byte-identical to `JSON.stringify(value, sortKeys)` (stored content hashes depend on it), but without a
 * replacer called for every value: plain objects whose keys are out of order are copied in sorted order
 * (only those, and their ancestors), then one native JSON.stringify writes the text.
 */
export function sortedKeysJson(value: unknown): string {
  const sorted = sortedDeep(value);
  if (sorted === SLOW) return slowSortedKeysJson(value);
  return JSON.stringify(sorted) ?? 'null';
}

/** Marks a value whose text only the reference definition reproduces (toJSON, class instances, index keys). */
const SLOW: unique symbol = Symbol('slow');

function sortedDeep(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = sortedDeep(value[i]);
      if (v === SLOW) return SLOW;
      if (v !== value[i]) {
        copy ??= value.slice();
        copy[i] = v;
      }
    }
    return copy ?? value;
  }
  const proto = Object.getPrototypeOf(value);
  if (
    (proto !== Object.prototype && proto !== null) ||
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  )
    return SLOW;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  let changed = !inOrder(keys);
  if (changed) {
    keys.sort();
    // An object built from sorted keys lists array-index keys first, as the reference's copy does: rare, slow.
    for (const k of keys) {
      const c = k.charCodeAt(0);
      if (c >= 48 && c <= 57) return SLOW;
    }
  }
  const values: unknown[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const original = obj[keys[i] as string];
    const v = sortedDeep(original);
    if (v === SLOW) return SLOW;
    if (v !== original) changed = true;
    values[i] = v;
  }
  if (!changed) return value;
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) out[keys[i] as string] = values[i];
  return out;
}

function inOrder(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (!((keys[i - 1] as string) < (keys[i] as string))) return false;
  return true;
}

/** The reference definition: JSON.stringify with a replacer that sorts each object's keys. */
export function slowSortedKeysJson(value: unknown): string {
  return JSON.stringify(value, sortKeys) ?? 'null';
}

// Copies an object only when its keys are out of order.
function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (inOrder(keys)) return value;
  const out: Record<string, unknown> = {};
  for (const k of keys.sort()) out[k] = (value as Record<string, unknown>)[k];
  return out;
}

/** Lowercase hex sha256 of text (its UTF-8) or of bytes: content and body hashes. */
export function sha256HexOf(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}
