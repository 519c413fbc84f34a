import { hash } from 'node:crypto';

/**
 * The eventId of a translated event: a short sha256 of (runId, key). Deterministic, so re-translating a sealed
 * source reproduces the same ids and an unchanged event is a no-op instead of a duplicate. One-shot `hash`
 * (no Hash object per event): the same digest as createHash().update(runId).update('\0').update(key).
 */
export function deriveEventId(runId: string, key: string): string {
  return `ev_${hash('sha256', `${runId}\u0000${key}`, 'hex').slice(0, 32)}`;
}
