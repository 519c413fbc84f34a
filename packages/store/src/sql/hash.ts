import { hash } from 'node:crypto';

/** JSON with object keys sorted, so equal values always give equal text (content comparison, body hashes). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, sortKeys) ?? 'null';
}

// Copies an object only when its keys are out of order (measured faster than a hand-written serializer).
function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = (keys[i - 1] as string) < (keys[i] as string);
  if (sorted) return value;
  const out: Record<string, unknown> = {};
  for (const k of keys.sort()) out[k] = (value as Record<string, unknown>)[k];
  return out;
}

export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}
