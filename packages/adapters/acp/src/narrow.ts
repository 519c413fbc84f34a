import type { JsonObject, JsonValue } from '@agentlane/contract';

/** Small helpers to read untrusted native frames without throwing. */
export type Obj = Record<string, JsonValue>;

export function isObj(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function obj(value: unknown): JsonObject | undefined {
  return isObj(value) ? value : undefined;
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function list(value: unknown): JsonValue[] {
  return Array.isArray(value) ? (value as JsonValue[]) : [];
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
