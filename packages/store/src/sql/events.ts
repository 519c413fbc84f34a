import type { CanonicalEvent, DeliveryRow } from '@agentlane/contract';
import { type AppendResult, type EventWrite, StoreError } from '../store';
import { canonicalJson, sha256Hex } from './hash';
import type { BulkColumn, SqlBackend, SqlConn, SqlParam } from './sql-conn';
import type { BatchContext, WriteJob } from './write-queue';

const EVENT_COLUMNS: readonly BulkColumn[] = [
  { name: 'thread_id', pgType: 'text' },
  { name: 'delivery_seq', pgType: 'bigint' },
  { name: 'event_id', pgType: 'text' },
  { name: 'revision', pgType: 'integer' },
  { name: 'run_id', pgType: 'text' },
  { name: 'seq', pgType: 'integer' },
  { name: 'kind', pgType: 'text' },
  { name: 'schema_version', pgType: 'integer' },
  { name: 'event', pgType: 'text' },
  { name: 'content_hash', pgType: 'text' },
  { name: 'provisional', pgType: 'integer' },
  { name: 'namespace', pgType: 'text' },
  { name: 'created_at', pgType: 'text' },
];

/**
 * What "identical content" means for a re-emission: the whole event except `ts` (a re-translation stamps
 * a new time but says the same thing), plus its namespace.
 */
export function contentHash(write: EventWrite): string {
  const { ts: _ts, ...rest } = write.event;
  return sha256Hex(canonicalJson({ event: rest, namespace: write.namespace ?? null }));
}

/** Rejects a malformed write before it reaches a transaction, naming the field. */
export function validateWrites(threadId: string, writes: readonly EventWrite[]): void {
  if (typeof threadId !== 'string' || threadId === '')
    throw new StoreError('invalid', 'threadId is required');
  writes.forEach((write, i) => {
    const e = write?.event as Partial<CanonicalEvent> | undefined;
    const at = `writes[${i}].event`;
    if (!e || typeof e !== 'object') throw new StoreError('invalid', `${at} must be an object`);
    if (typeof e.eventId !== 'string' || e.eventId === '')
      throw new StoreError('invalid', `${at}.eventId is required`);
    if (typeof e.runId !== 'string' || e.runId === '')
      throw new StoreError('invalid', `${at}.runId is required`);
    if (typeof e.kind !== 'string') throw new StoreError('invalid', `${at}.kind is required`);
    if (!Number.isInteger(e.seq)) throw new StoreError('invalid', `${at}.seq must be an integer`);
    if (!Number.isInteger(e.schemaVersion))
      throw new StoreError('invalid', `${at}.schemaVersion must be an integer`);
    if (e.threadId !== threadId) throw new StoreError('invalid', `${at}.threadId must be ${threadId}`);
    if (write.namespace !== undefined && !Array.isArray(write.namespace))
      throw new StoreError('invalid', `writes[${i}].namespace must be an array`);
  });
}

async function latestRevisions(
  db: SqlBackend,
  conn: SqlConn,
  eventIds: string[],
): Promise<Map<string, { revision: number; hash: string }>> {
  const found = new Map<string, { revision: number; hash: string }>();
  if (eventIds.length === 0) return found;
  const rows = await db.selectWhereIn<{ event_id: string; revision: number; content_hash: string }>(
    conn,
    'SELECT event_id, revision, content_hash FROM canonical_events WHERE',
    'event_id',
    eventIds,
  );
  for (const row of rows) {
    const seen = found.get(row.event_id);
    if (!seen || Number(row.revision) > seen.revision) {
      found.set(row.event_id, { revision: Number(row.revision), hash: row.content_hash });
    }
  }
  return found;
}

/** The append job: next revision per changed eventId, next deliverySeq per row, identical ones skipped. */
export function appendEventsJob(
  db: SqlBackend,
  threadId: string,
  writes: readonly EventWrite[],
  provisional: boolean,
  now: () => string,
): WriteJob<AppendResult> {
  return {
    rows: writes.length,
    threadIds: [threadId],
    runIds: [],
    async exec(ctx: BatchContext): Promise<AppendResult> {
      let head = ctx.heads.get(threadId);
      if (head === undefined) throw new StoreError('not_found', `thread ${threadId} not found`);
      const unknownIds = [...new Set(writes.map((w) => w.event.eventId))].filter(
        (id) => !ctx.revisions.has(id),
      );
      const stored = await latestRevisions(db, ctx.conn, unknownIds);
      const createdAt = now();
      const inserted: DeliveryRow[] = [];
      const params: SqlParam[][] = [];
      let unchanged = 0;
      for (const write of writes) {
        const hash = contentHash(write);
        const latest = ctx.revisions.get(write.event.eventId) ?? stored.get(write.event.eventId);
        if (latest && latest.hash === hash) {
          unchanged++;
          continue;
        }
        const revision = (latest?.revision ?? 0) + 1;
        head += 1;
        ctx.revisions.set(write.event.eventId, { revision, hash });
        const e = write.event;
        const row: DeliveryRow = {
          threadId,
          deliverySeq: head,
          eventId: e.eventId,
          revision,
          runId: e.runId,
          seq: e.seq,
          kind: e.kind,
          schemaVersion: e.schemaVersion,
          provisional,
          event: e,
        };
        if (write.namespace) row.namespace = write.namespace;
        inserted.push(row);
        params.push([
          threadId,
          head,
          e.eventId,
          revision,
          e.runId,
          e.seq,
          e.kind,
          e.schemaVersion,
          JSON.stringify(e),
          hash,
          provisional ? 1 : 0,
          write.namespace ? JSON.stringify(write.namespace) : null,
          createdAt,
        ]);
      }
      await db.insertRows(ctx.conn, 'canonical_events', EVENT_COLUMNS, params);
      if (inserted.length > 0) {
        ctx.heads.set(threadId, head);
        ctx.movedHeads.add(threadId);
      }
      return { inserted, unchanged };
    },
  };
}

interface EventRow {
  thread_id: string;
  delivery_seq: number | string;
  event_id: string;
  revision: number;
  run_id: string;
  seq: number;
  kind: string;
  schema_version: number;
  event: string;
  namespace: string | null;
  provisional: number;
}

/**
 * Rows are never updated, so `provisional` is derived here: the stored flag, unless the run's completion
 * record covers the row (deliverySeq <= lastDeliverySeq).
 */
export const EVENT_SELECT = `SELECT e.thread_id, e.delivery_seq, e.event_id, e.revision, e.run_id, e.seq, e.kind,
  e.schema_version, e.event, e.namespace,
  CASE WHEN e.provisional = 1 AND (c.last_delivery_seq IS NULL OR e.delivery_seq > c.last_delivery_seq)
    THEN 1 ELSE 0 END AS provisional
FROM canonical_events e LEFT JOIN canonicalization_completions c ON c.run_id = e.run_id`;

export function toDeliveryRow(r: EventRow): DeliveryRow {
  const row: DeliveryRow = {
    threadId: r.thread_id,
    deliverySeq: Number(r.delivery_seq),
    eventId: r.event_id,
    revision: Number(r.revision),
    runId: r.run_id,
    seq: Number(r.seq),
    kind: r.kind,
    schemaVersion: Number(r.schema_version),
    provisional: Number(r.provisional) === 1,
    event: JSON.parse(r.event) as CanonicalEvent,
  };
  if (r.namespace !== null) row.namespace = JSON.parse(r.namespace) as string[];
  return row;
}

export async function readEventRows(
  conn: SqlConn,
  threadId: string,
  after: number,
  limit: number,
): Promise<DeliveryRow[]> {
  // deliverySeqs of a thread are contiguous (allocated in the insert transaction, a rollback returns them),
  // so the page is also bounded above: the scan touches at most `limit` rows whatever plan the database
  // picks (with stale statistics PostgreSQL would otherwise sort every row after `after`).
  const rows = await conn.all<EventRow>(
    `${EVENT_SELECT} WHERE e.thread_id = ? AND e.delivery_seq > ? AND e.delivery_seq <= ? ORDER BY e.delivery_seq LIMIT ?`,
    [threadId, after, after + limit, limit],
  );
  return rows.map(toDeliveryRow);
}

export async function latestEventRows(
  conn: SqlConn,
  threadId: string,
  runId?: string,
): Promise<DeliveryRow[]> {
  const runFilter = runId === undefined ? '' : ' AND run_id = ?';
  const params: SqlParam[] = runId === undefined ? [threadId] : [threadId, runId];
  const rows = await conn.all<EventRow>(
    `${EVENT_SELECT}
JOIN (SELECT event_id, MAX(revision) AS latest, MIN(delivery_seq) AS first_seq FROM canonical_events
  WHERE thread_id = ?${runFilter} GROUP BY event_id) m ON m.event_id = e.event_id AND m.latest = e.revision
ORDER BY m.first_seq`,
    params,
  );
  return rows.map(toDeliveryRow);
}
