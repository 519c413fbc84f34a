import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so equal values always give equal text (content comparison, body hashes). */
export function canonicalJson(value: unknown): string {
  return write(value) ?? 'null';
}

// Same output as JSON.stringify (undefined members dropped, toJSON honoured), keys in sorted order.
function write(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const json = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof json === 'function') return write(json.call(value));
  if (Array.isArray(value)) return `[${value.map((v) => write(v) ?? 'null').join(',')}]`;
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const v = write((value as Record<string, unknown>)[key]);
    if (v !== undefined) parts.push(`${JSON.stringify(key)}:${v}`);
  }
  return `{${parts.join(',')}}`;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
