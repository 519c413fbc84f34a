import type { JsonObject, JsonValue } from '@agentlane/contract';

/**
 * Reading untrusted native frames field by field without throwing and without casting wholesale. One module
 * for every translator: each name says what comes back when the value is not of the type asked for.
 */

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object, or undefined. */
export function asObject(value: unknown): JsonObject | undefined {
  return isObject(value) ? value : undefined;
}

/** The string, or undefined. */
export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The string, or '' (for payload fields that must be a string even when the frame left them out). */
export function stringOrEmpty(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A finite number, or undefined. */
export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function asBoolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** The array, or undefined. */
export function asArray(value: unknown): JsonValue[] | undefined {
  return Array.isArray(value) ? (value as JsonValue[]) : undefined;
}

/** The array, or [] (for lists a frame may leave out). */
export function listOf(value: unknown): JsonValue[] {
  return Array.isArray(value) ? (value as JsonValue[]) : [];
}

/**
 * Whether `value` is base64 (the standard or the URL-safe alphabet, padded or not, whitespace ignored), i.e.
 * `Buffer.from(value, 'base64')` decodes all of it. Buffer skips what is not base64 and stops at a misplaced
 * `=`, so without this check garbage decodes silently to other bytes.
 */
export function isBase64(value: string): boolean {
  const s = /\s/.test(value) ? value.replace(/\s+/g, '') : value;
  if (s.length % 4 === 1) return false;
  if (!/^(?:[A-Za-z0-9+/]*|[A-Za-z0-9_-]*)={0,2}$/.test(s)) return false;
  return !s.endsWith('=') || s.length % 4 === 0;
}

/** JSON-RPC ids are numbers or strings; both are kept as their string form in state. */
export function rpcId(value: unknown): string | undefined {
  if (typeof value === 'number' || typeof value === 'string') return String(value);
  return undefined;
}

/** Drops keys whose value is undefined, so payloads stay valid JSON and schema-clean. */
export function compact<T extends object>(value: T): T {
  const out = {} as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}

/** A JSON text for change detection (key order as given; native producers are stable). */
export function jsonKey(value: JsonValue | undefined): string {
  return value === undefined ? '' : JSON.stringify(value);
}
