import { vectorEntry } from '@agentlane/contract';
import type { SyncChangeRecord, SyncState, SyncStateQuery } from '../../roles/sync.js';
import { toSyncChange } from '../rows.js';
import type { SqlConn, SqlRow } from '../sql-conn.js';
import { one, type SqlContext } from './context.js';
import { catchUpHeads, HEADS_JOIN, selectIn } from './sync-heads.js';

// What one sync reads, each part bounded by what it asks for (a page of bytes, the heads of its keys, its own
// versions) and by the number of writers, never by the number of changes the session holds.

/** Rows looked at per statement while paging unseen changes, and in all per page (most may be seen ones). */
const SCAN_CHUNK = 256;
const SCAN_ROWS = 4096;
/**
 * Changes read whole (and parsed) per statement. Between statements a page yields to the event loop: on
 * SQLite every statement runs on it, and a page's rows parsed at once held it for tens of milliseconds.
 */
const READ_CHUNK = 128;
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Conflicting keys looked at per page (each has two heads at least). */
const CONFLICT_KEYS = 512;
/** What a change weighs in a reply: its stored texts and about the JSON around them. */
const BYTES = (p: string) =>
  `octet_length(${p}key) + octet_length(${p}value) + octet_length(${p}vector) + octet_length(${p}client_id) + 64`;

const emptyState = (): SyncState => ({
  count: 0,
  newest: new Map(),
  own: [],
  heads: [],
  unseen: { changes: [], more: false },
  conflicts: { heads: [], more: false },
});

/** `SyncStore.readSyncState`: each part asked for, read within its bounds. */
export async function readSyncState(
  ctx: SqlContext,
  sessionId: string,
  query: SyncStateQuery,
): Promise<SyncState> {
  const row = await ctx.db.read((c) =>
    one(c, 'SELECT head, folded FROM sync_heads WHERE session_id = ?', [sessionId]),
  );
  const count = Number(row?.head ?? 0);
  // No changes: whatever the heads index holds for this id is left from a deleted session of the same id.
  if (count === 0) return emptyState();
  // Heads are read from the index: fold in first what was stored without it (once per such session).
  if (Number(row?.folded ?? 0) < count && (query.keys?.length || query.conflicts))
    await catchUpHeads(ctx, sessionId);
  return ctx.db.read(async (c) => {
    const newest = query.own || query.unseen ? await newestVersions(c, sessionId) : new Map<string, number>();
    const state = emptyState();
    state.count = count;
    state.newest = newest;
    if (query.own) state.own = await ownChanges(c, sessionId, query.own, newest);
    if (query.keys?.length)
      state.heads = (
        await selectIn<SqlRow>(
          c,
          `SELECT ch.* FROM ${HEADS_JOIN} WHERE h.session_id = ? AND h.key`,
          query.keys,
          [sessionId],
        )
      ).map(toSyncChange);
    if (query.unseen) state.unseen = await unseenPage(c, sessionId, newest, query.unseen);
    if (query.conflicts) state.conflicts = await conflictPage(c, sessionId, query.conflicts);
    return state;
  });
}

/**
 * Each writer's newest version, by a loose index scan: one index seek per writer (the next client id, then
 * its greatest version) instead of a pass over every change of the session.
 */
async function newestVersions(c: SqlConn, sessionId: string): Promise<Map<string, number>> {
  const rows = await c.all<SqlRow>(
    `WITH RECURSIVE w (client_id) AS (
  SELECT MIN(client_id) FROM sync_changes WHERE session_id = ?
  UNION ALL
  SELECT (SELECT MIN(client_id) FROM sync_changes WHERE session_id = ? AND client_id > w.client_id) FROM w
  WHERE w.client_id IS NOT NULL
)
SELECT client_id, (SELECT MAX(version) FROM sync_changes s WHERE s.session_id = ? AND s.client_id = w.client_id) AS newest
FROM w WHERE client_id IS NOT NULL`,
    [sessionId, sessionId, sessionId],
  );
  return new Map(rows.map((r) => [String(r.client_id), Number(r.newest)]));
}

/** The client's stored changes at `versions`, and its newest (what its next write's vector must include). */
async function ownChanges(
  c: SqlConn,
  sessionId: string,
  own: NonNullable<SyncStateQuery['own']>,
  newest: ReadonlyMap<string, number>,
): Promise<SyncChangeRecord[]> {
  const last = newest.get(own.clientId) ?? 0;
  const versions = [
    ...new Set([...own.versions.filter((v) => v >= 1 && v <= last), ...(last > 0 ? [last] : [])]),
  ];
  const rows = await selectIn<SqlRow>(
    c,
    'SELECT * FROM sync_changes WHERE session_id = ? AND client_id = ? AND version',
    versions,
    [sessionId, own.clientId],
  );
  return rows.map(toSyncChange).sort((a, b) => a.version - b.version);
}

/**
 * A page of the changes `vector` has not seen, in arrival order from the first of them. Arrival order is
 * causal: a change is stored in a later transaction than every write its vector names, and one call stores
 * a writer's versions in order (older sessions may hold them otherwise within one call: a page takes a
 * writer's unseen versions below one it sends too). So once a client has a page, every write the page's
 * vectors name is one it has seen or been sent, and its next sync starts after the page. Rows it has seen
 * are skipped (at most SCAN_ROWS looked at), then the chosen ones, of about `maxBytes`, are read whole.
 */
async function unseenPage(
  c: SqlConn,
  sessionId: string,
  newest: ReadonlyMap<string, number>,
  { vector, maxBytes }: NonNullable<SyncStateQuery['unseen']>,
): Promise<SyncState['unseen']> {
  const behind = [...newest].filter(([clientId, n]) => n > vectorEntry(vector, clientId));
  if (behind.length === 0) return { changes: [], more: false };
  let from = await firstUnseen(c, sessionId, behind, vector);
  const picked: number[] = [];
  let bytes = 0;
  let full = false;
  for (let scanned = 0; !full && scanned < SCAN_ROWS; scanned += SCAN_CHUNK) {
    const rows = await c.all<SqlRow>(
      `SELECT client_id, version, server_seq, ${BYTES('')} AS bytes FROM sync_changes WHERE session_id = ? AND server_seq >= ? ORDER BY server_seq LIMIT ?`,
      [sessionId, from, SCAN_CHUNK],
    );
    for (const r of rows) {
      if (Number(r.version) <= vectorEntry(vector, String(r.client_id))) continue;
      if (picked.length > 0 && bytes + Number(r.bytes) > maxBytes) {
        full = true;
        break;
      }
      picked.push(Number(r.server_seq));
      bytes += Number(r.bytes);
    }
    if (rows.length < SCAN_CHUNK) break;
    from = Number(rows[rows.length - 1]?.server_seq) + 1;
    await tick();
  }
  const changes: SyncChangeRecord[] = [];
  for (let i = 0; i < picked.length; i += READ_CHUNK) {
    const rows = await selectIn<SqlRow>(
      c,
      'SELECT * FROM sync_changes WHERE session_id = ? AND server_seq',
      picked.slice(i, i + READ_CHUNK),
      [sessionId],
    );
    changes.push(...rows.map(toSyncChange));
    await tick();
  }
  changes.push(...(await lowerVersions(c, sessionId, changes, vector)));
  changes.sort((a, b) => a.serverSeq - b.serverSeq);
  const sent = new Map<string, number>();
  for (const ch of changes) sent.set(ch.clientId, Math.max(sent.get(ch.clientId) ?? 0, ch.version));
  const more = behind.some(
    ([clientId, n]) => n > Math.max(vectorEntry(vector, clientId), sent.get(clientId) ?? 0),
  );
  return { changes, more };
}

/**
 * The unseen versions of the page's writers below a version the page sends, not in it: none, unless one call
 * of an older server stored a writer's versions out of order. With them each writer's versions sent follow
 * the client's entry without a gap.
 */
async function lowerVersions(
  c: SqlConn,
  sessionId: string,
  page: readonly SyncChangeRecord[],
  vector: Readonly<Record<string, number>>,
): Promise<SyncChangeRecord[]> {
  const byWriter = new Map<string, Set<number>>();
  for (const ch of page) byWriter.set(ch.clientId, (byWriter.get(ch.clientId) ?? new Set()).add(ch.version));
  const out: SyncChangeRecord[] = [];
  for (const [clientId, versions] of byWriter) {
    const from = vectorEntry(vector, clientId) + 1;
    const to = Math.max(...versions);
    if (versions.size === to - from + 1) continue;
    const gaps = Array.from({ length: to - from + 1 }, (_, i) => from + i).filter((v) => !versions.has(v));
    const rows = await selectIn<SqlRow>(
      c,
      'SELECT * FROM sync_changes WHERE session_id = ? AND client_id = ? AND version',
      gaps,
      [sessionId, clientId],
    );
    out.push(...rows.map(toSyncChange));
  }
  return out;
}

/** The arrival counter of the first change `vector` has not seen (from sync_changes_by_writer alone). */
async function firstUnseen(
  c: SqlConn,
  sessionId: string,
  behind: readonly [string, number][],
  vector: Readonly<Record<string, number>>,
): Promise<number> {
  let first = Number.POSITIVE_INFINITY;
  for (let i = 0; i < behind.length; i += 100) {
    const chunk = behind.slice(i, i + 100);
    const row = await one(
      c,
      `SELECT MIN(s) AS s FROM (${chunk
        .map(
          () =>
            'SELECT (SELECT MIN(server_seq) FROM sync_changes WHERE session_id = ? AND client_id = ? AND version > ?) AS s',
        )
        .join(' UNION ALL ')}) t`,
      chunk.flatMap(([clientId]) => [sessionId, clientId, vectorEntry(vector, clientId)]),
    );
    if (row?.s !== null && row?.s !== undefined) first = Math.min(first, Number(row.s));
  }
  return Number.isFinite(first) ? first : 0;
}

/**
 * A page of the keys with more than one head, after `after` in key order, whole keys of about `maxBytes`,
 * with their heads (read whole only for the keys chosen).
 */
async function conflictPage(
  c: SqlConn,
  sessionId: string,
  { after, maxBytes }: NonNullable<SyncStateQuery['conflicts']>,
): Promise<SyncState['conflicts']> {
  const keys = (
    await c.all<SqlRow>(
      `SELECT key FROM sync_key_heads WHERE session_id = ?${after === undefined ? '' : ' AND key > ?'} GROUP BY key HAVING COUNT(*) > 1 ORDER BY key LIMIT ?`,
      after === undefined ? [sessionId, CONFLICT_KEYS + 1] : [sessionId, after, CONFLICT_KEYS + 1],
    )
  ).map((r) => String(r.key));
  if (keys.length === 0) return { heads: [], more: false };
  const sizes = await selectIn<SqlRow>(
    c,
    `SELECT h.key, ${BYTES('ch.')} AS bytes FROM ${HEADS_JOIN} WHERE h.session_id = ? AND h.key`,
    keys.slice(0, CONFLICT_KEYS),
    [sessionId],
  );
  const weight = new Map<string, number>();
  for (const r of sizes) weight.set(String(r.key), (weight.get(String(r.key)) ?? 0) + Number(r.bytes));
  const chosen: string[] = [];
  let bytes = 0;
  for (const key of keys.slice(0, CONFLICT_KEYS)) {
    const w = weight.get(key) ?? 0;
    if (chosen.length > 0 && bytes + w > maxBytes) break;
    chosen.push(key);
    bytes += w;
  }
  const order = new Map(chosen.map((key, i) => [key, i]));
  const heads = (
    await selectIn<SqlRow>(c, `SELECT ch.* FROM ${HEADS_JOIN} WHERE h.session_id = ? AND h.key`, chosen, [
      sessionId,
    ])
  )
    .map(toSyncChange)
    .sort((a, b) => (order.get(a.key) ?? 0) - (order.get(b.key) ?? 0));
  return { heads, more: chosen.length < keys.length };
}
