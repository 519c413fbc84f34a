import type { JsonValue } from '@agentlane/contract';

/**
 * Set while the channels of a state read back through a head's base layout are checked. Only this saver writes
 * a layout, with a full row it validated at put (isJsonValue included) and stored as JSON.stringify's text;
 * JSON.parse of that text can only pass the deep walk again, and the walk was a tenth of a cold get-latest.
 * The channels' shape checks still run.
 */
let ownRows = false;

/** Runs `check` (synchronous) with the deep JSON walk skipped, for values parsed from rows this saver wrote. */
export function checkingOwnRows<T>(check: () => T): T {
  ownRows = true;
  try {
    return check();
  } finally {
    ownRows = false;
  }
}

/** A lone UTF-16 surrogate: no UTF-8 text, so no canonical JSON (no fingerprint) and no row can hold it. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * True when `value` is plain JSON (no undefined, functions, NaN, class instances, strings or keys with a lone
 * surrogate; cycles are not checked).
 */
export function isJsonValue(value: unknown, depth = 0): value is JsonValue {
  if (ownRows) return true;
  if (depth > 512) return false;
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
      return !LONE_SURROGATE.test(value);
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        if (LONE_SURROGATE.test(key)) return false;
        if (!isJsonValue((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// Shared with the lane (its final pass compares re-translated events with the stored ones).
export { jsonEqual } from '@agentlane/contract';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Freezes a parsed JSON tree in place; already-frozen subtrees (shared with a parent state) are skipped. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
