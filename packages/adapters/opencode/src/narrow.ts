import type { JsonObject, JsonValue } from '@agentlane/contract';

/** Small narrowing helpers: native frames are untrusted input, read field by field, never cast wholesale. */

export function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

export function asString(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asNumber(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function asArray(value: JsonValue | undefined): JsonValue[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

export function asBoolean(value: JsonValue | undefined): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** A deterministic JSON text for change detection (key order as given; native producers are stable). */
export function jsonKey(value: JsonValue | undefined): string {
  return value === undefined ? '' : JSON.stringify(value);
}
