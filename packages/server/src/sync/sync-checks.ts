import type { VersionVector } from '@agentlane/contract';
import { canonicalJson, compareVectors, vectorEntry } from '@agentlane/contract';
import { HttpError, quote } from '../errors.js';
import { keysOverHeadLimit, SYNC_LIMITS, type SyncChange } from './sync-state.js';

// What a sync may say, checked against what the store holds of the session: the writers' newest versions,
// the syncing client's stored changes at the versions it sends (and its newest), and the heads of the keys
// it writes. Never the session's whole history: these checks are as costly as the request, not the session.

/** One change as a client sends it (its own; the client is the request's). */
export type IncomingChange = { key: string; value: unknown; version: number; vector: VersionVector };

/** A stored (clientId, version) sent again with other content (`version`) or another vector (`vector`). */
export function storedOtherwise(
  clientId: string,
  version: number,
  i: number,
  field: 'version' | 'vector',
): HttpError {
  return new HttpError(
    'conflict',
    `changes[${i}]: version ${version} of ${quote(clientId)} is stored with ${field === 'version' ? 'other content' : 'another vector'}`,
    `body.changes[${i}].${field}`,
  );
}

/** Refuses a sync that would grow the session past SYNC_LIMITS.changesPerSession (the work of every later sync). */
export function assertRoom(sessionId: string, count: number, fresh: number): void {
  if (count + fresh > SYNC_LIMITS.changesPerSession) {
    throw new HttpError(
      'conflict',
      `session ${sessionId} would hold ${count + fresh} sync changes; at most ${SYNC_LIMITS.changesPerSession} are kept`,
      'body.changes',
    );
  }
}

/**
 * Refuses the first write of a client when the session already has SYNC_LIMITS.writersPerSession writers
 * (`newest`: each writer's newest version). Two processes may both pass this check at the same moment: the
 * store checks it again in its writing transaction (SyncLimits), so one of them is refused there.
 */
export function assertWriterRoom(
  sessionId: string,
  clientId: string,
  writes: number,
  newest: ReadonlyMap<string, number>,
): void {
  if (writes === 0 || newest.has(clientId) || newest.size < SYNC_LIMITS.writersPerSession) return;
  throw new HttpError(
    'conflict',
    `session ${sessionId} already holds the writes of ${newest.size} clients; at most ${SYNC_LIMITS.writersPerSession} write in one session (a vector names at most ${SYNC_LIMITS.writersPerSession}): write as one of them`,
    'body.clientId',
  );
}

/** Refuses a sync that would leave a key with more than SYNC_LIMITS.headsPerKey heads (`heads`: its keys' now). */
export function assertHeadsWithinLimit(heads: readonly SyncChange[], fresh: readonly SyncChange[]): void {
  const [over] = keysOverHeadLimit(heads, fresh);
  if (over) {
    throw new HttpError(
      'conflict',
      `key "${over.key}": more than ${SYNC_LIMITS.headsPerKey} concurrent writes would stand unresolved (write one that has seen them)`,
      'body.changes',
    );
  }
}

/**
 * A client's versions count its writes: 1, 2, 3, … each once, in order. A write that is not stored must be the
 * next one, so a vector entry n always means "writes 1..n of that client": a version below a stored one that
 * arrived late, or one past a gap, would be a write that clients whose vector already counts it never get.
 * Returns the client's newest version once this sync is stored.
 */
function assertInOrder(
  clientId: string,
  changes: readonly IncomingChange[],
  storedMax: number,
  stored: ReadonlyMap<number, SyncChange>,
): number {
  const fresh = changes
    .map((c, i) => ({ version: c.version, i }))
    .filter((c) => !stored.has(c.version))
    .sort((a, b) => a.version - b.version);
  let next = storedMax + 1;
  for (const { version, i } of fresh) {
    if (version !== next)
      throw new HttpError(
        'conflict',
        version < next
          ? `changes[${i}]: version ${version} of ${quote(clientId)} comes after its version ${storedMax}: versions are written in order`
          : `changes[${i}]: version ${version} of ${quote(clientId)} skips version ${next}, never sent: send every version in order`,
        `body.changes[${i}].version`,
      );
    next++;
  }
  return next - 1;
}

/**
 * A client never forgets what it has seen: each of its writes has seen everything its previous write had
 * (the vector of version v includes that of v - 1), and the vector it syncs with includes its newest write's.
 * A vector that went backwards would make two writes of one client look concurrent to every other client.
 * `stored` holds the client's stored versions v and v - 1 of every version v sent, and its newest.
 */
function assertVectorsGrow(
  clientId: string,
  vector: VersionVector,
  changes: readonly IncomingChange[],
  stored: ReadonlyMap<number, SyncChange>,
): void {
  const vectorOf = new Map<number, VersionVector>();
  for (const c of stored.values()) vectorOf.set(c.version, c.vector);
  for (const c of changes) if (!vectorOf.has(c.version)) vectorOf.set(c.version, c.vector);
  const missing = (later: VersionVector, earlier: VersionVector | undefined) =>
    earlier && Object.keys(earlier).find((id) => vectorEntry(later, id) < vectorEntry(earlier, id));
  changes.forEach((c, i) => {
    const previous = vectorOf.get(c.version - 1);
    const lost = missing(c.vector, previous);
    if (lost !== undefined && previous)
      throw new HttpError(
        'invalid_request',
        `changes[${i}].vector[${quote(lost)}] is ${vectorEntry(c.vector, lost)}, but version ${c.version - 1} of ${quote(clientId)} had seen ${vectorEntry(previous, lost)}: a client's vector never goes back`,
        `body.changes[${i}].vector`,
      );
  });
  const newest = Math.max(0, ...vectorOf.keys());
  const last = vectorOf.get(newest);
  const behind = missing(vector, last);
  if (behind !== undefined && last)
    throw new HttpError(
      'invalid_request',
      `vector[${quote(behind)}] is ${vectorEntry(vector, behind)}, but version ${newest} of ${quote(clientId)} had seen ${vectorEntry(last, behind)}: a client's vector never goes back`,
      'body.vector',
    );
}

/** Each (client, version) once per sync; a stored one again only with its stored content (a retry). */
function assertRetriesSame(
  clientId: string,
  changes: readonly IncomingChange[],
  byVersion: ReadonlyMap<number, SyncChange>,
): void {
  const versions = new Set<number>();
  changes.forEach((c, i) => {
    if (versions.has(c.version))
      throw new HttpError(
        'invalid_request',
        `changes[${i}]: version ${c.version} is written twice in this sync`,
        `body.changes[${i}].version`,
      );
    versions.add(c.version);
    const prior = byVersion.get(c.version);
    // The same value is the same JSON as RFC 8785 canonical text (key order does not count), as the store
    // compares it when it finds the row stored in its own transaction.
    if (prior && (prior.key !== c.key || canonicalJson(prior.value) !== canonicalJson(c.value ?? null)))
      throw storedOtherwise(clientId, c.version, i, 'version');
    // A retry whose vector differs would be answered 200 while its vector is dropped: the client must know.
    if (prior && compareVectors(prior.vector, c.vector) !== 'equal')
      throw storedOtherwise(clientId, c.version, i, 'vector');
  });
}

/**
 * What a sync may say: each (client, version) once, a stored one again only with its stored content (a retry),
 * and no vector entry of another client beyond the versions this server stored for it: a vector claiming
 * writes nobody sent would be merged into every client's vector and hide those writes when they come.
 * `newest`: each writer's newest stored version; `own`: the client's stored changes the store read for it.
 */
export function assertConsistent(
  clientId: string,
  vector: VersionVector,
  changes: readonly IncomingChange[],
  newest: ReadonlyMap<string, number>,
  own: readonly SyncChange[],
): void {
  const byVersion = new Map(own.map((c) => [c.version, c]));
  assertRetriesSame(clientId, changes, byVersion);
  const written = assertInOrder(clientId, changes, newest.get(clientId) ?? 0, byVersion);
  assertVectorsGrow(clientId, vector, changes, byVersion);
  if (vectorEntry(vector, clientId) > written)
    throw new HttpError(
      'invalid_request',
      `vector[${quote(clientId)}] is ${vector[clientId]}, but ${quote(clientId)} has written ${written} versions`,
      'body.vector',
    );
  const beyond = (v: VersionVector) =>
    Object.entries(v).find(([id, n]) => id !== clientId && n > (newest.get(id) ?? 0));
  const [id, n] = beyond(vector) ?? [];
  if (id !== undefined)
    throw new HttpError(
      'invalid_request',
      `vector["${id}"] is ${n}, but this session holds no such write of ${id}`,
      'body.vector',
    );
  changes.forEach((c, i) => {
    const [other, at] = beyond(c.vector) ?? [];
    if (other !== undefined)
      throw new HttpError(
        'invalid_request',
        `changes[${i}].vector["${other}"] is ${at}, but this session holds no such write of ${other}`,
        `body.changes[${i}].vector`,
      );
  });
}
