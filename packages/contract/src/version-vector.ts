/** A JSON object keyed by client id with monotonically increasing integers. */
export type VersionVector = Record<string, number>;

export type VectorOrder = 'equal' | 'ancestor' | 'descendant' | 'concurrent';

/** One write by one client: the client's own entry after incrementing. */
export interface VersionedChange {
  clientId: string;
  version: number;
}

// Vector math as the language-agnostic contract defines it. Pure; inputs are never mutated. A missing entry
// counts as 0, so {a: 0} and {} describe the same history.

/** `v`'s count for `clientId`: 0 when absent, and only an own entry (a `constructor` key is not Object's). */
export function vectorEntry(v: VersionVector, clientId: string): number {
  return Object.hasOwn(v, clientId) ? (v[clientId] ?? 0) : 0;
}
const entry = vectorEntry;

function clientIds(a: VersionVector, b: VersionVector): Set<string> {
  return new Set([...Object.keys(a), ...Object.keys(b)]);
}

/**
 * Element-wise max: the history of both. Built with Object.fromEntries, which defines own properties: an
 * assignment `merged["__proto__"] = n` set the prototype instead, and that client's entry was lost.
 */
export function mergeVectors(a: VersionVector, b: VersionVector): VersionVector {
  return Object.fromEntries(
    [...clientIds(a, b)]
      .sort()
      .map((clientId) => [clientId, Math.max(entry(a, clientId), entry(b, clientId))]),
  );
}

/**
 * How `a` relates to `b`: `equal` (same history), `ancestor` (b has seen everything a has, and more),
 * `descendant` (a has seen everything b has, and more), or `concurrent` (each has a write the other lacks).
 */
export function compareVectors(a: VersionVector, b: VersionVector): VectorOrder {
  let aAhead = false;
  let bAhead = false;
  for (const clientId of clientIds(a, b)) {
    const x = entry(a, clientId);
    const y = entry(b, clientId);
    if (x > y) aAhead = true;
    else if (y > x) bAhead = true;
  }
  if (aAhead && bAhead) return 'concurrent';
  if (aAhead) return 'descendant';
  if (bAhead) return 'ancestor';
  return 'equal';
}

/** True when `v` already includes `change`: `v[change.clientId] >= change.version`. */
export function hasSeen(v: VersionVector, change: VersionedChange): boolean {
  return entry(v, change.clientId) >= change.version;
}

/** A client increments its own entry on every write; the result is a descendant of `v`. */
export function incrementVector(v: VersionVector, clientId: string): VersionVector {
  return { ...v, [clientId]: entry(v, clientId) + 1 };
}
