import { createHash } from 'node:crypto';
import { ulid } from 'ulid';

/**
 * A ULID that is a pure function of when the call ended and the row's idempotency key: the time part is
 * `createdAtMs`, the 80 "random" bits come from sha256(key). Re-translating the same source lane therefore
 * rebuilds byte-identical rows, record_id included, so a replayed write is a no-op on every unique column.
 */
export function deterministicUlid(createdAtMs: number, key: string): string {
  const bytes = createHash('sha256').update(key).digest();
  let i = 0;
  // ulid() asks for one value in [0, 1) per character (16 of them); each takes 5 bits of one hash byte.
  const prng = () => (bytes[i++ % bytes.length] ?? 0) / 256;
  const time = Number.isFinite(createdAtMs) && createdAtMs >= 0 ? Math.floor(createdAtMs) : 0;
  return ulid(time, prng);
}

/** The idempotency key of an audit row as one string (the seed of its record id). */
export function auditKey(sessionId: string, turnId: string, stageId: string, seq: number): string {
  return [sessionId, turnId, stageId, String(seq)].join('\u0000');
}
