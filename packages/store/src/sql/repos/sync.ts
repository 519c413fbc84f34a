import { canonicalJson, compareVectors } from '@agentlane/contract';
import type { SyncChangeRecord, SyncLimits, SyncState, SyncStateQuery, SyncStore } from '../../roles/sync.js';
import { StoreError } from '../../store.js';
import { toSyncChange } from '../rows.js';
import type { SqlRow } from '../sql-conn.js';
import { one, type SqlContext } from './context.js';
import { foldHeads } from './sync-heads.js';
import { assertHeadRoom, assertWriterRoom } from './sync-limits.js';
import { readSyncState } from './sync-read.js';

/**
 * Sync changes in SQL: keyed by (sessionId, clientId, version), ordered by a per-session counter row, with
 * each key's heads kept in an index beside them (`sync-heads.ts`) and read a bounded part at a time
 * (`sync-read.ts`).
 */
export class SqlSync implements SyncStore {
  constructor(private readonly ctx: SqlContext) {}

  /**
   * Returns the changes stored by this call (a retried change already present is left out). A stored
   * (clientId, version) sent again with another key or value, or another vector, is a `conflict` whose detail
   * names the change's field (`changes[i].version`, `changes[i].vector`); nothing of the call is stored.
   */
  async appendSyncChanges(
    sessionId: string,
    changes: Omit<SyncChangeRecord, 'serverSeq' | 'receivedAt' | 'sessionId'>[],
    limits: SyncLimits = {},
  ): Promise<SyncChangeRecord[]> {
    changes.forEach((ch, i) => {
      if (typeof ch?.clientId !== 'string' || ch.clientId === '')
        throw new StoreError('invalid', `changes[${i}].clientId is required`);
      if (!Number.isInteger(ch.version) || ch.version < 1)
        throw new StoreError('invalid', `changes[${i}].version must be a positive integer`);
      if (typeof ch.key !== 'string') throw new StoreError('invalid', `changes[${i}].key is required`);
      if (!ch.vector || typeof ch.vector !== 'object')
        throw new StoreError('invalid', `changes[${i}].vector is required`);
    });
    return this.ctx.tx(async (c) => {
      // The upsert locks the session's counter row, so serverSeq is allocated in commit order.
      const headRow = await one(
        c,
        'INSERT INTO sync_heads (session_id, head) VALUES (?, 0) ON CONFLICT (session_id) DO UPDATE SET head = sync_heads.head RETURNING head, folded',
        [sessionId],
      );
      const first = Number(headRow?.head ?? 0);
      const folded = Number(headRow?.folded ?? 0);
      // Heads indexed under this id while it holds no change are a deleted session's (deleteThread leaves them).
      if (first === 0) await c.run('DELETE FROM sync_key_heads WHERE session_id = ?', [sessionId]);
      let head = first;
      const receivedAt = this.ctx.now();
      const stored: SyncChangeRecord[] = [];
      const fresh = new Map<string, (typeof changes)[number]>();
      for (const [i, ch] of changes.entries()) {
        // Checked under the counter row's lock, which every append to the session takes first: of two stores
        // (processes) writing one (client, version), the second sees the first's row here, so a different
        // write is refused instead of being dropped as if it were a repeat.
        const seen = await one(
          c,
          'SELECT key, value, vector FROM sync_changes WHERE session_id = ? AND client_id = ? AND version = ?',
          [sessionId, ch.clientId, ch.version],
        );
        // The same (client, version) twice in one call is compared with the first as if it were stored.
        const earlier = fresh.get(`${ch.clientId}\u0000${ch.version}`);
        if (seen || earlier) assertRepeat(i, ch, seen ? toStoredChange(seen) : (earlier as IncomingChange));
        else fresh.set(`${ch.clientId}\u0000${ch.version}`, ch);
      }
      if (limits.changesPerSession !== undefined && first + fresh.size > limits.changesPerSession)
        throw new StoreError(
          'conflict',
          `session ${sessionId} would hold ${first + fresh.size} sync changes; at most ${limits.changesPerSession} are kept`,
          'limit:changes',
        );
      await assertWriterRoom(c, sessionId, [...fresh.values()], limits.writersPerSession);
      // A writer's versions get increasing serverSeqs whatever order one call sends them in: arrival order is
      // then causal, which is what paging unseen changes by serverSeq relies on (sync-read.ts).
      for (const ch of [...fresh.values()].sort((a, b) => a.version - b.version)) {
        head += 1;
        const record: SyncChangeRecord = { ...ch, sessionId, serverSeq: head, receivedAt };
        await c.run(
          'INSERT INTO sync_changes (session_id, client_id, version, key, value, vector, server_seq, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          [
            sessionId,
            ch.clientId,
            ch.version,
            ch.key,
            JSON.stringify(ch.value ?? null),
            JSON.stringify(ch.vector),
            head,
            receivedAt,
          ],
        );
        stored.push(record);
      }
      if (stored.length > 0) {
        assertHeadRoom(await foldHeads(c, sessionId, stored), limits.headsPerKey);
        // Changes stored before the index, or by a process that does not keep it, wait for catchUpHeads: until
        // then `folded` stays where they start (folding these again then is harmless).
        await c.run('UPDATE sync_heads SET head = ?, folded = ? WHERE session_id = ?', [
          head,
          folded === first ? head : folded,
          sessionId,
        ]);
      }
      return stored;
    });
  }

  async listSyncChanges(sessionId: string): Promise<SyncChangeRecord[]> {
    const rows = await this.ctx.db.read((c) =>
      c.all<SqlRow>('SELECT * FROM sync_changes WHERE session_id = ? ORDER BY server_seq', [sessionId]),
    );
    return rows.map(toSyncChange);
  }

  readSyncState(sessionId: string, query: SyncStateQuery): Promise<SyncState> {
    return readSyncState(this.ctx, sessionId, query);
  }
}

type IncomingChange = Pick<SyncChangeRecord, 'clientId' | 'version' | 'key' | 'value' | 'vector'>;

const toStoredChange = (row: SqlRow): Pick<SyncChangeRecord, 'key' | 'value' | 'vector'> => ({
  key: String(row.key),
  value: JSON.parse(String(row.value)) as SyncChangeRecord['value'],
  vector: JSON.parse(String(row.vector)) as SyncChangeRecord['vector'],
});

/**
 * A change whose (clientId, version) is stored is a repeat only when it says what is stored: the same key,
 * the same value as RFC 8785 canonical JSON (key order does not count), an equal vector.
 */
function assertRepeat(
  i: number,
  ch: IncomingChange,
  stored: Pick<SyncChangeRecord, 'key' | 'value' | 'vector'>,
): void {
  const who = `version ${ch.version} of ${JSON.stringify(ch.clientId)}`;
  if (stored.key !== ch.key || canonicalJson(stored.value) !== canonicalJson(ch.value ?? null))
    throw new StoreError(
      'conflict',
      `changes[${i}]: ${who} is stored with other content`,
      `changes[${i}].version`,
    );
  if (compareVectors(stored.vector, ch.vector) !== 'equal')
    throw new StoreError(
      'conflict',
      `changes[${i}]: ${who} is stored with another vector`,
      `changes[${i}].vector`,
    );
}
