import type { JsonValue, SyncResponse, VersionVector } from '@agentlane/contract';
import { mergeVectors, vectorEntry } from '@agentlane/contract';
import { StoreError, type SyncChangeRecord } from '@agentlane/store';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertThreadAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import { ErrorSchema, SyncBody, SyncReply, ThreadParams } from '../schemas.js';
import {
  assertConsistent,
  assertHeadsWithinLimit,
  assertRoom,
  assertWriterRoom,
  type IncomingChange,
  storedOtherwise,
} from '../sync/sync-checks.js';
import { conflictSignature, conflictsOf, SYNC_LIMITS, type SyncChange } from '../sync/sync-state.js';

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
            'Version-vector sync: store unseen changes, report concurrent writes, return the merged vector and a page of the changes the client has not seen',
          params: ThreadParams,
          body: SyncBody,
          response: { 200: SyncReply, 400: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema },
        },
      },
      async (request, reply) => {
        const sessionId = request.params.id;
        assertThreadAccess(request.principal, sessionId);
        const { clientId, vector, changes, cursor } = request.body;
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
        const conflictsFrom = readCursor(cursor);
        if (!(await ctx.store.getThread(sessionId))) throw notFound('session', sessionId, 'params.id');
        const page = await serialized(sessionId, () =>
          sync(ctx, sessionId, { clientId, vector, changes }, conflictsFrom),
        );
        // The schema's serializer walks every vector key by key (its pattern checked on each): about 100 ms of
        // event loop for a page of 1 MiB, against 3 ms for JSON.stringify. The page is built field by field in
        // the schema's shape (`answer`), so the schema still describes what is sent. Errors keep the default.
        reply.serializer(JSON.stringify);
        return page;
      },
    );
  };

const toChange = (c: SyncChangeRecord): SyncChange => ({
  clientId: c.clientId,
  version: c.version,
  key: c.key,
  value: c.value,
  vector: c.vector,
});

/**
 * One sync, its reads bounded by the request and by a page of reply (SYNC_LIMITS.reply*), never by the
 * session's size: what it checks the request against, the heads of the keys it writes, and a page of what the
 * client has not seen. Before, each sync read the whole session twice and answered with all of it: at the
 * 10,000-change cap one empty sync of a new client took 30 s and held /health for 22 s.
 */
async function sync(
  ctx: ServerContext,
  sessionId: string,
  body: { clientId: string; vector: VersionVector; changes: readonly IncomingChange[] },
  conflictsFrom: ConflictCursor,
): Promise<SyncResponse> {
  const { clientId, vector, changes } = body;
  const before = await ctx.store.readSyncState(sessionId, {
    own: { clientId, versions: changes.flatMap((c) => [c.version, c.version - 1]) },
  });
  assertConsistent(clientId, vector, changes, before.newest, before.own.map(toChange));
  const stored = new Set(before.own.map((c) => c.version));
  const fresh: SyncChange[] = changes
    .filter((c) => !stored.has(c.version))
    .map((c) => ({ clientId, ...c, value: c.value as JsonValue }));
  assertRoom(sessionId, before.count, fresh.length);
  assertWriterRoom(sessionId, clientId, fresh.length, before.newest);
  // Only the keys this sync writes can gain a conflict: the others are compared with nothing new.
  const touched = [...new Set(fresh.map((c) => c.key))];
  const heads = touched.length ? (await ctx.store.readSyncState(sessionId, { keys: touched })).heads : [];
  assertHeadsWithinLimit(heads.map(toChange), fresh);
  const standing = new Set(conflictsOf(heads.map(toChange)).map(conflictSignature));
  // Already-seen (clientId, version) pairs are ignored by the store: a retry is harmless. The store compares
  // them again under its lock: another process may have stored one since `before` was read. A sync that
  // only reads takes no write transaction.
  if (changes.length > 0) await storeChanges(ctx, sessionId, clientId, changes);
  const after = await ctx.store.readSyncState(sessionId, {
    keys: touched,
    unseen: { vector, maxBytes: SYNC_LIMITS.replyChangeBytes },
    ...(conflictsFrom === 'done'
      ? {}
      : { conflicts: { after: conflictsFrom?.after, maxBytes: SYNC_LIMITS.replyConflictBytes } }),
  });
  for (const conflict of conflictsOf(after.heads.map(toChange))) {
    if (standing.has(conflictSignature(conflict))) continue;
    ctx.hub.publish(sessionId, { type: 'sync.conflict', sessionId, ...conflict });
  }
  return answer(vector, after.unseen, after.conflicts);
}

/**
 * The answer: the page of unseen changes, the page of conflicts, and the client's vector merged with the
 * versions the page sends. The page holds each writer's unseen versions from the first without a gap, and
 * every write their vectors name is one the client has seen or is sent (arrival order is causal, see the
 * store's `readSyncState`): so this vector is the merge of theirs, and it names no write the client lacks. A
 * client that ignores `more` gets the rest at its next sync. `more` and `cursor` only when something is left.
 */
function answer(
  vector: VersionVector,
  unseen: { changes: SyncChangeRecord[]; more: boolean },
  conflicts: { heads: SyncChangeRecord[]; more: boolean },
): SyncResponse {
  const sent = new Map<string, number>();
  for (const c of unseen.changes) sent.set(c.clientId, Math.max(sent.get(c.clientId) ?? 0, c.version));
  // A zero entry names no write: dropped, so the vector names writers only (at most writersPerSession).
  const merged = Object.entries(mergeVectors(vector, Object.fromEntries(sent))).filter(([, n]) => n > 0);
  const page: SyncResponse = {
    vector: Object.fromEntries(merged),
    changes: unseen.changes.map(toChange),
    conflicts: conflictsOf(conflicts.heads.map(toChange)),
  };
  if (!unseen.more && !conflicts.more) return page;
  const last = conflicts.heads[conflicts.heads.length - 1];
  return { ...page, more: true, cursor: conflicts.more && last ? `k${last.key}` : 'e' };
}

/** Where a sync's page of conflicts starts: undefined from the first, `done` when the last page had them all. */
type ConflictCursor = { after: string } | 'done' | undefined;

/** A reply's `cursor`, sent back: `k<key>` (conflicts after that key) or `e` (conflicts all sent). */
function readCursor(cursor: string | undefined): ConflictCursor {
  if (cursor === undefined) return undefined;
  if (cursor === 'e') return 'done';
  if (cursor.startsWith('k')) return { after: cursor.slice(1) };
  throw new HttpError('invalid_request', 'cursor is not one this server sent', 'body.cursor');
}

/**
 * Appends the sync's changes. A (clientId, version) that another server process stored with other content
 * after this one read the session is refused by the store in its writing transaction: answered as the check
 * above answers it when it sees the stored row (409 naming `body.changes[i].version` or `.vector`). The
 * store checks SYNC_LIMITS again under its lock: the checks above read before it, so two processes could
 * each let one more write in (a probe left a key with 33 heads).
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
      SYNC_LIMITS,
    );
  } catch (error) {
    // A bound another process's sync reached between this one's checks and its write (limit:…).
    if (error instanceof StoreError && error.code === 'conflict' && error.detail?.startsWith('limit:'))
      throw new HttpError(
        'conflict',
        error.message,
        error.detail === 'limit:writers' ? 'body.clientId' : 'body.changes',
      );
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
