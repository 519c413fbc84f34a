import type { JsonValue } from '@agentlane/contract';

/** True when `value` is plain JSON (no undefined, functions, NaN, class instances, cycles are not checked). */
export function isJsonValue(value: unknown, depth = 0): value is JsonValue {
  if (depth > 512) return false;
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
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
