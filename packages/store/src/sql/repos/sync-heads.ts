import { compareVectors } from '@agentlane/contract';
import type { SqlConn, SqlParam, SqlRow } from '../sql-conn.js';
import { one, type SqlContext } from './context.js';

/**
 * The heads index of sync (`sync_key_heads`): for each key of a session, its changes no other change to the
 * key has seen. Conflicts are the keys with more than one head, so a sync reads a key's few heads instead of
 * the key's whole history (a sync used to load and compare every change of the session on every request).
 * `sync_heads.folded` is the arrival counter up to which every change is in the index: rows stored before
 * the index existed, or by a process that does not keep it, are folded in later (`catchUpHeads`).
 */

/** A change as the index needs it. */
export interface HeadChange {
  clientId: string;
  version: number;
  key: string;
  vector: Record<string, number>;
}

/** Parameters per IN list: far below both databases' limits, and one statement's rows stay few. */
const IN_CHUNK = 500;

/** Rows of `head` + ` IN (…) ` + `tail` for `values`, in chunks (`params` bind before, `after` behind the list). */
export async function selectIn<T = SqlRow>(
  c: SqlConn,
  head: string,
  values: readonly SqlParam[],
  params: readonly SqlParam[],
  tail = '',
  after: readonly SqlParam[] = [],
): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < values.length; i += IN_CHUNK) {
    const chunk = values.slice(i, i + IN_CHUNK);
    const sql = `${head} IN (${chunk.map(() => '?').join(', ')})${tail}`;
    out.push(...(await c.all<T>(sql, [...params, ...chunk, ...after])));
  }
  return out;
}

/** The join of the index with the changes it names. */
export const HEADS_JOIN =
  'sync_key_heads h JOIN sync_changes ch ON ch.session_id = h.session_id AND ch.client_id = h.client_id AND ch.version = h.version';

const id = (c: { key: string; clientId: string; version: number }) =>
  `${c.key}\u0000${c.clientId}\u0000${c.version}`;

/**
 * Folds changes into their keys' heads (returning how many each key had and has), in the writing transaction that holds the session's counter row. A
 * change some head has seen is no head; a new head drops the heads it has seen. The heads are the maximal
 * changes whatever the order they are folded in, and a change folded again (a catch-up over rows already
 * folded) changes nothing: it is a head already, or some head has seen it.
 */
export async function foldHeads(
  c: SqlConn,
  sessionId: string,
  changes: readonly HeadChange[],
): Promise<HeadCounts> {
  const counts: HeadCounts = new Map();
  if (changes.length === 0) return counts;
  const keys = [...new Set(changes.map((ch) => ch.key))];
  const current = (
    await selectIn<SqlRow>(
      c,
      `SELECT h.key, h.client_id, h.version, ch.vector FROM ${HEADS_JOIN} WHERE h.session_id = ? AND h.key`,
      keys,
      [sessionId],
    )
  ).map(toHead);
  const byKey = new Map<string, HeadChange[]>();
  for (const h of current) byKey.set(h.key, [...(byKey.get(h.key) ?? []), h]);
  for (const ch of changes) {
    const heads = byKey.get(ch.key) ?? [];
    const seen = (h: HeadChange) =>
      (h.clientId === ch.clientId && h.version === ch.version) ||
      compareVectors(ch.vector, h.vector) === 'ancestor';
    if (heads.some(seen)) continue;
    byKey.set(ch.key, [...heads.filter((h) => compareVectors(h.vector, ch.vector) !== 'ancestor'), ch]);
  }
  for (const h of current) counts.set(h.key, { before: (counts.get(h.key)?.before ?? 0) + 1, after: 0 });
  for (const [key, heads] of byKey)
    counts.set(key, { before: counts.get(key)?.before ?? 0, after: heads.length });
  const before = new Set(current.map(id));
  const after = new Map([...byKey.values()].flat().map((h) => [id(h), h]));
  for (const h of current.filter((h) => !after.has(id(h))))
    await c.run(
      'DELETE FROM sync_key_heads WHERE session_id = ? AND key = ? AND client_id = ? AND version = ?',
      [sessionId, h.key, h.clientId, h.version],
    );
  for (const [ref, h] of after) {
    if (before.has(ref)) continue;
    await c.run('INSERT INTO sync_key_heads (session_id, key, client_id, version) VALUES (?, ?, ?, ?)', [
      sessionId,
      h.key,
      h.clientId,
      h.version,
    ]);
  }
  return counts;
}

/** Each folded key's number of heads before and after a fold. */
export type HeadCounts = Map<string, { before: number; after: number }>;

const toHead = (r: SqlRow): HeadChange => ({
  key: String(r.key),
  clientId: String(r.client_id),
  version: Number(r.version),
  vector: JSON.parse(String(r.vector)) as Record<string, number>,
});

/** Changes folded per transaction while catching up: one batch's work is bounded, not the session's. */
const CATCH_UP_ROWS = 500;

/**
 * Folds into the index the changes stored after `folded` (a session written before the index existed, or by
 * an older server process), a batch per transaction, yielding between batches: on SQLite every statement
 * runs on the event loop. Returns once the index holds every change stored when it looked.
 */
export async function catchUpHeads(ctx: SqlContext, sessionId: string): Promise<void> {
  for (;;) {
    const left = await ctx.tx(async (c) => {
      const row = await one(
        c,
        `SELECT head, folded FROM sync_heads WHERE session_id = ?${ctx.db.forUpdate}`,
        [sessionId],
      );
      const head = Number(row?.head ?? 0);
      const folded = Number(row?.folded ?? 0);
      if (folded >= head) return false;
      const batch = await c.all<SqlRow>(
        'SELECT client_id, version, key, vector, server_seq FROM sync_changes WHERE session_id = ? AND server_seq > ? ORDER BY server_seq LIMIT ?',
        [sessionId, folded, CATCH_UP_ROWS],
      );
      await foldHeads(c, sessionId, batch.map(toHead));
      const last = batch.length < CATCH_UP_ROWS ? head : Number(batch[batch.length - 1]?.server_seq ?? head);
      await c.run('UPDATE sync_heads SET folded = ? WHERE session_id = ?', [last, sessionId]);
      return last < head;
    });
    if (!left) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
