import { StoreError } from '../../store.js';
import type { SqlConn } from '../sql-conn.js';
import type { HeadCounts } from './sync-heads.js';
import { selectIn } from './sync-heads.js';

/**
 * The bounds of SyncLimits that need the session's rows, checked in the writing transaction (which holds the
 * session's counter row, so every append to the session is serialised here, across processes too).
 */

/** Refuses first writes of new clients past `max` writers in the session. */
export async function assertWriterRoom(
  c: SqlConn,
  sessionId: string,
  fresh: readonly { clientId: string }[],
  max: number | undefined,
): Promise<void> {
  if (max === undefined || fresh.length === 0) return;
  const clients = [...new Set(fresh.map((ch) => ch.clientId))];
  const known = await selectIn<{ client_id: string }>(
    c,
    'SELECT DISTINCT client_id FROM sync_changes WHERE session_id = ? AND client_id',
    clients,
    [sessionId],
  );
  const added = clients.length - known.length;
  if (added === 0) return;
  const row = await c.all<{ n: number | string }>(
    'SELECT COUNT(DISTINCT client_id) AS n FROM sync_changes WHERE session_id = ?',
    [sessionId],
  );
  const writers = Number(row[0]?.n ?? 0);
  if (writers + added > max)
    throw new StoreError(
      'conflict',
      `session ${sessionId} already holds the writes of ${writers} clients; at most ${max} write in one session`,
      'limit:writers',
    );
}

/** Refuses a fold that left a key with more than `max` heads and more than it had before. */
export function assertHeadRoom(counts: HeadCounts, max: number | undefined): void {
  if (max === undefined) return;
  for (const [key, { before, after }] of counts) {
    if (after > max && after > before)
      throw new StoreError(
        'conflict',
        `key ${JSON.stringify(key)}: more than ${max} concurrent writes would stand unresolved (write one that has seen them)`,
        `limit:heads:${key}`,
      );
  }
}
