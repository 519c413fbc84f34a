import type { JsonValue, VersionVector } from '@agentlane/contract';
import { canonicalJson, compareVectors, hasSeen, mergeVectors, vectorEntry } from '@agentlane/contract';
import { StoreError } from '@agentlane/store';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertThreadAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { HttpError, notFound, quote } from '../errors.js';
import { ErrorSchema, SyncBody, SyncReply, ThreadParams } from '../schemas.js';
import {
  conflictSignature,
  conflictsOf,
  keysOverHeadLimit,
  SYNC_LIMITS,
  type SyncChange,
} from '../sync/sync-state.js';

export const syncRoutes =
  (ctx: ServerContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    // One sync at a time per session in this process, so "new conflicts" are computed against a stable base.
    const queues = new Map<string, Promise<unknown>>();
    const serialized = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
      const next = (queues.get(key) ?? Promise.resolve()).catch(() => undefined).then(fn);
      queues.set(key, next);
      // Both branches: a rejected sync must not leave an unhandled rejection behind (it killed the process).
      const forget = () => {
        if (queues.get(key) === next) queues.delete(key);
      };
      next.then(forget, forget);
      return next;
    };

    app.post(
      '/sessions/:id/sync',
      {
        schema: {
          summary:
            'Version-vector sync: store unseen changes, report concurrent writes, return the merged vector and the changes the client has not seen',
          params: ThreadParams,
          body: SyncBody,
          response: { 200: SyncReply, 400: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema },
        },
      },
      async (request) => {
        const sessionId = request.params.id;
        assertThreadAccess(request.principal, sessionId);
        const { clientId, vector, changes } = request.body;
        changes.forEach((c, i) => {
          // A client increments its own entry on every write: the change's vector must say so.
          // Own entries only (vectorEntry): a client named `constructor` must not find Object's function.
          if (vectorEntry(c.vector, clientId) !== c.version) {
            throw new HttpError(
              'invalid_request',
              `changes[${i}].vector["${clientId}"] must equal its version ${c.version}`,
              `body.changes[${i}].vector`,
            );
          }
          if (vectorEntry(vector, clientId) < c.version) {
            throw new HttpError(
              'invalid_request',
              `vector["${clientId}"] must include the client's own change version ${c.version}`,
              'body.vector',
            );
          }
        });
        if (!(await ctx.store.getThread(sessionId))) throw notFound('session', sessionId, 'params.id');

        return serialized(sessionId, async () => {
          const toChange = (c: {
            clientId: string;
            version: number;
            key: string;
            value: unknown;
            vector: VersionVector;
          }): SyncChange => ({
            clientId: c.clientId,
            version: c.version,
            key: c.key,
            value: c.value as JsonValue,
            vector: c.vector,
          });
          const stored = (await ctx.store.listSyncChanges(sessionId)).map(toChange);
          assertConsistent(clientId, vector, changes, stored);
          const seen = new Set(stored.map((c) => `${c.clientId}\u0000${c.version}`));
          const fresh = changes
            .map((c) => toChange({ clientId, ...c }))
            .filter((c) => !seen.has(`${c.clientId}\u0000${c.version}`));
          assertWithinLimits(sessionId, stored, fresh);
          // Only the keys this sync writes can gain a conflict: the others are compared with nothing new.
          const touched = new Set(fresh.map((c) => c.key));
          const before = new Set(conflictsOf(stored, touched).map(conflictSignature));
          // Already-seen (clientId, version) pairs are ignored by the store: a retry is harmless. The store
          // compares them again under its lock: another process may have stored one since `stored` was read.
          await storeChanges(ctx, sessionId, clientId, changes);
          const all = (await ctx.store.listSyncChanges(sessionId)).map(toChange);
          let serverVector: VersionVector = {};
          for (const c of all) serverVector = mergeVectors(serverVector, c.vector);
          const conflicts = conflictsOf(all);
          for (const conflict of conflicts) {
            if (!touched.has(conflict.key) || before.has(conflictSignature(conflict))) continue;
            ctx.hub.publish(sessionId, { type: 'sync.conflict', sessionId, ...conflict });
          }
          return {
            vector: mergeVectors(serverVector, vector),
            changes: all.filter((c) => !hasSeen(vector, c)),
            conflicts,
          };
        });
      },
    );
  };

/**
 * Appends the sync's changes. A (clientId, version) that another server process stored with other content
 * after this one read the session is refused by the store in its writing transaction: answered as the check
 * above answers it when it sees the stored row (409 naming `body.changes[i].version` or `.vector`).
 */
async function storeChanges(
  ctx: ServerContext,
  sessionId: string,
  clientId: string,
  changes: readonly IncomingChange[],
): Promise<void> {
  try {
    await ctx.store.appendSyncChanges(
      sessionId,
      changes.map((c) => ({ clientId, ...c, value: c.value as JsonValue })),
    );
  } catch (error) {
    const refused = error instanceof StoreError && error.code === 'conflict' ? refusedChange(error) : null;
    const change = refused && changes[refused.i];
    if (!refused || !change) throw error;
    throw storedOtherwise(clientId, change.version, refused.i, refused.field);
  }
}

/** The change a store conflict names (detail `changes[i].version` / `changes[i].vector`), if it names one. */
function refusedChange(error: StoreError): { i: number; field: 'version' | 'vector' } | null {
  const match = /^changes\[(\d+)\]\.(version|vector)$/.exec(error.detail ?? '');
  return match ? { i: Number(match[1]), field: match[2] === 'vector' ? 'vector' : 'version' } : null;
}

/** A stored (clientId, version) sent again with other content (`version`) or another vector (`vector`). */
function storedOtherwise(
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

/** Refuses a sync that would grow the session's state past SYNC_LIMITS (the work of every later sync). */
function assertWithinLimits(sessionId: string, stored: SyncChange[], fresh: SyncChange[]): void {
  if (stored.length + fresh.length > SYNC_LIMITS.changesPerSession) {
    throw new HttpError(
      'conflict',
      `session ${sessionId} would hold ${stored.length + fresh.length} sync changes; at most ${SYNC_LIMITS.changesPerSession} are kept`,
      'body.changes',
    );
  }
  const [over] = keysOverHeadLimit(stored, fresh);
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
  stored: ReadonlyMap<string, SyncChange>,
): number {
  const fresh = changes
    .map((c, i) => ({ version: c.version, i }))
    .filter((c) => !stored.has(String(c.version)))
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
 */
function assertVectorsGrow(
  clientId: string,
  vector: VersionVector,
  changes: readonly IncomingChange[],
  stored: ReadonlyMap<string, SyncChange>,
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

type IncomingChange = { key: string; value: unknown; version: number; vector: VersionVector };

/**
 * What a sync may say: each (client, version) once, a stored one again only with its stored content (a retry),
 * and no vector entry of another client beyond the versions this server stored for it: a vector claiming
 * writes nobody sent would be merged into every client's vector and hide those writes when they come.
 */
function assertConsistent(
  clientId: string,
  vector: VersionVector,
  changes: readonly IncomingChange[],
  stored: readonly SyncChange[],
): void {
  const known = new Map<string, number>();
  const byVersion = new Map<string, SyncChange>();
  for (const c of stored) {
    known.set(c.clientId, Math.max(known.get(c.clientId) ?? 0, c.version));
    if (c.clientId === clientId) byVersion.set(String(c.version), c);
  }
  const versions = new Set<number>();
  changes.forEach((c, i) => {
    if (versions.has(c.version))
      throw new HttpError(
        'invalid_request',
        `changes[${i}]: version ${c.version} is written twice in this sync`,
        `body.changes[${i}].version`,
      );
    versions.add(c.version);
    const prior = byVersion.get(String(c.version));
    // The same value is the same JSON as RFC 8785 canonical text (key order does not count), as the store
    // compares it when it finds the row stored in its own transaction.
    if (prior && (prior.key !== c.key || canonicalJson(prior.value) !== canonicalJson(c.value ?? null)))
      throw storedOtherwise(clientId, c.version, i, 'version');
    // A retry whose vector differs would be answered 200 while its vector is dropped: the client must know.
    if (prior && compareVectors(prior.vector, c.vector) !== 'equal')
      throw storedOtherwise(clientId, c.version, i, 'vector');
  });
  const own = assertInOrder(clientId, changes, known.get(clientId) ?? 0, byVersion);
  assertVectorsGrow(clientId, vector, changes, byVersion);
  if (vectorEntry(vector, clientId) > own)
    throw new HttpError(
      'invalid_request',
      `vector[${quote(clientId)}] is ${vector[clientId]}, but ${quote(clientId)} has written ${own} versions`,
      'body.vector',
    );
  const beyond = (v: VersionVector) =>
    Object.entries(v).find(([id, n]) => id !== clientId && n > (known.get(id) ?? 0));
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
