import { CANONICAL_EVENT_KINDS, type StreamEvent, WIRE_ONLY_TYPES } from '@agentlane/contract';

const KNOWN_TYPES: ReadonlySet<string> = new Set<string>([...CANONICAL_EVENT_KINDS, ...WIRE_ONLY_TYPES]);
const CANONICAL: ReadonlySet<string> = new Set<string>(CANONICAL_EVENT_KINDS);

export function isCanonicalType(type: string): boolean {
  return CANONICAL.has(type);
}

/**
 * Narrows one SSE `data:` payload to a StreamEvent. Returns undefined for malformed JSON, an unknown
 * `type` (the contract says readers skip those) or a canonical frame without its delivery fields.
 */
export function parseStreamEvent(data: string): StreamEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const type = record['type'];
  if (typeof type !== 'string' || !KNOWN_TYPES.has(type)) return undefined;
  if (CANONICAL.has(type)) {
    const event = record['event'];
    if (typeof record['deliverySeq'] !== 'number' || typeof event !== 'object' || event === null)
      return undefined;
    if ((event as { kind?: unknown }).kind !== type) return undefined;
    if (typeof (event as { eventId?: unknown }).eventId !== 'string') return undefined;
  }
  return value as StreamEvent;
}
