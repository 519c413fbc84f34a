import { createHash } from 'node:crypto';
import type { JsonValue } from '@agentlane/contract';

/** A short hash of a JSON value (event keys, "was this input sent already"). */
export function hashOf(value: JsonValue | object): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 12);
}
