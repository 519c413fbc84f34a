import { createHash } from 'node:crypto';

/**
 * The eventId of a translated event: a short sha256 of (runId, key). Deterministic, so re-translating a sealed
 * source reproduces the same ids and an unchanged event is a no-op instead of a duplicate.
 */
export function deriveEventId(runId: string, key: string): string {
  const digest = createHash('sha256').update(runId).update('\u0000').update(key).digest('hex');
  return `ev_${digest.slice(0, 32)}`;
}
