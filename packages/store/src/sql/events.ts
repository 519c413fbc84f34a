import type { CanonicalEvent, DeliveryRow } from '@agentlane/contract';
import { type AppendResult, type EventWrite, StoreError } from '../store.js';
import { sha256HexOf, sortedKeysJson } from './sorted-keys-json.js';
import type { BulkColumn, SqlBackend, SqlConn, SqlParam } from './sql-conn.js';
import type { BatchContext, WriteJob } from './write-queue.js';

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
  return sha256HexOf(sortedKeysJson({ event: rest, namespace: write.namespace ?? null }));
}

/**
 * Stored in `content_hash` by rows whose hash is derived when needed, from the row's own `event` and
 * `namespace` text (JSON round-trips losslessly, so it is the hash the write would have had). Most events are
 * written once and never compared: hashing each at write time cost as much as serialising it. Rows written
 * before this carry their sha256 hex, which is compared as is.
 */
const DERIVED_HASH = '';

/** The latest revision of an eventId, with what its content hash is computed from when it is needed. */
interface Latest {
  revision: number;
  hash: string;
  /** The write itself (a row of this batch), or the stored text; used only when `hash` is DERIVED_HASH. */
  write?: EventWrite;
  text?: { event: string; namespace: string | null };
}

function hashOf(latest: Latest): string {
  if (latest.hash !== DERIVED_HASH) return latest.hash;
  let write = latest.write;
  if (!write && latest.text) {
    const event = JSON.parse(latest.text.event) as CanonicalEvent;
    const namespace =
      latest.text.namespace === null ? undefined : (JSON.parse(latest.text.namespace) as string[]);
    write = namespace ? { event, namespace } : { event };
  }
  if (!write)
    throw new StoreError('unavailable', 'a stored event row has neither a content hash nor its text');
  latest.hash = contentHash(write);
  return latest.hash;
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
    if (write.firstWrite !== undefined && typeof write.firstWrite !== 'boolean')
      throw new StoreError('invalid', `writes[${i}].firstWrite must be a boolean`);
  });
}

async function latestRevisions(
  db: SqlBackend,
  conn: SqlConn,
  eventIds: string[],
): Promise<Map<string, Latest>> {
  const found = new Map<string, Latest>();
  if (eventIds.length === 0) return found;
  // Only ids that exist come back (re-emissions); their text only where the hash is derived.
  const rows = await db.selectWhereIn<{
    event_id: string;
    revision: number | string;
    content_hash: string;
    event: string | null;
    namespace: string | null;
  }>(
    conn,
    `SELECT event_id, revision, content_hash, CASE WHEN content_hash = '${DERIVED_HASH}' THEN event END AS event,
      namespace FROM canonical_events WHERE`,
    'event_id',
    eventIds,
  );
  for (const row of rows) {
    const revision = Number(row.revision);
    const seen = found.get(row.event_id);
    if (seen && seen.revision >= revision) continue;
    const latest: Latest = { revision, hash: row.content_hash };
    if (row.event !== null) latest.text = { event: row.event, namespace: row.namespace };
    found.set(row.event_id, latest);
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
  liveRunId?: string,
): WriteJob<AppendResult> {
  return {
    rows: writes.length,
    threadIds: [threadId],
    // The live pass locks its run's lane too: the seal and this check are serialised (AppendOptions).
    runIds: liveRunId === undefined ? [] : [liveRunId],
    async exec(ctx: BatchContext): Promise<AppendResult> {
      let head = ctx.heads.get(threadId);
      if (head === undefined) throw new StoreError('not_found', `thread ${threadId} not found`);
      if (liveRunId !== undefined && ctx.lanes.get(liveRunId)?.sealed)
        throw new StoreError(
          'source_sealed',
          `run ${liveRunId}: its source lane is sealed; live rows are no longer written (the final pass writes them)`,
        );
      // Claimed first writes are not looked up: if the claim is wrong, the insert breaks the unique index.
      const unknownIds = new Set<string>();
      let claims = 0;
      for (const w of writes) {
        if (w.firstWrite === true) claims++;
        else if (!ctx.revisions.has(w.event.eventId)) unknownIds.add(w.event.eventId);
      }
      const stored = await latestRevisions(db, ctx.conn, [...unknownIds]);
      const createdAt = now();
      const inserted: DeliveryRow[] = [];
      const params: SqlParam[][] = [];
      const flag = provisional ? 1 : 0;
      let unchanged = 0;
      for (const write of writes) {
        const e = write.event;
        const latest = ctx.revisions.get(e.eventId) ?? stored.get(e.eventId);
        // Content is only compared (and hashed) when the eventId was written before: a re-emission.
        if (latest && hashOf(latest) === contentHash(write)) {
          unchanged++;
          continue;
        }
        const revision = (latest?.revision ?? 0) + 1;
        head += 1;
        ctx.revisions.set(e.eventId, { revision, hash: DERIVED_HASH, write });
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
          DERIVED_HASH,
          flag,
          write.namespace ? JSON.stringify(write.namespace) : null,
          createdAt,
        ]);
      }
      try {
        await db.insertRows(ctx.conn, 'canonical_events', EVENT_COLUMNS, params);
      } catch (error) {
        // Not a StoreError: the shared transaction rolls back and this call is retried alone, where it fails.
        if (claims > 0 && db.isUniqueViolation(error)) {
          throw new Error(
            `appendEvents: an eventId written as a firstWrite is already stored (${errorText(error)})`,
          );
        }
        throw error;
      }
      if (inserted.length > 0) {
        ctx.heads.set(threadId, head);
        ctx.movedHeads.add(threadId);
      }
      return { inserted, unchanged };
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Rows are never updated, so `provisional` is derived here: the stored flag, unless the run's completion
 * record covers the row (deliverySeq <= lastDeliverySeq). Read as arrays (SqlConn.rows), in this order.
 */
export const EVENT_SELECT = `SELECT e.thread_id, e.delivery_seq, e.event_id, e.revision, e.run_id, e.seq, e.kind,
  e.schema_version, e.event, e.namespace,
  CASE WHEN e.provisional = 1 AND (c.last_delivery_seq IS NULL OR e.delivery_seq > c.last_delivery_seq)
    THEN 1 ELSE 0 END AS provisional
FROM canonical_events e LEFT JOIN canonicalization_completions c ON c.run_id = e.run_id`;

/** One row of EVENT_SELECT. PostgreSQL returns BIGINT as a string, hence the Number() calls. */
export function toDeliveryRow(r: unknown[]): DeliveryRow {
  const row: DeliveryRow = {
    threadId: r[0] as string,
    deliverySeq: Number(r[1]),
    eventId: r[2] as string,
    revision: Number(r[3]),
    runId: r[4] as string,
    seq: Number(r[5]),
    kind: r[6] as string,
    schemaVersion: Number(r[7]),
    provisional: Number(r[10]) === 1,
    event: JSON.parse(r[8] as string) as CanonicalEvent,
  };
  if (r[9] !== null) row.namespace = JSON.parse(r[9] as string) as string[];
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
  const rows = await conn.rows(
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
  const rows = await conn.rows(
    `${EVENT_SELECT}
JOIN (SELECT event_id, MAX(revision) AS latest, MIN(delivery_seq) AS first_seq FROM canonical_events
  WHERE thread_id = ?${runFilter} GROUP BY event_id) m ON m.event_id = e.event_id AND m.latest = e.revision
ORDER BY m.first_seq`,
    params,
  );
  return rows.map(toDeliveryRow);
}

/**
 * A page of a run's latest revisions by their own deliverySeq: a range of canonical_events_by_run, each row
 * kept when no later revision of its eventId exists (the (event_id, revision) unique index answers that).
 */
export async function latestEventPageRows(
  conn: SqlConn,
  threadId: string,
  runId: string,
  after: number,
  limit: number,
): Promise<DeliveryRow[]> {
  const rows = await conn.rows(
    `${EVENT_SELECT}
WHERE e.thread_id = ? AND e.run_id = ? AND e.delivery_seq > ? AND NOT EXISTS (
  SELECT 1 FROM canonical_events n WHERE n.event_id = e.event_id AND n.revision > e.revision
    AND n.thread_id = e.thread_id AND n.run_id = e.run_id)
ORDER BY e.delivery_seq LIMIT ?`,
    [threadId, runId, after, limit],
  );
  return rows.map(toDeliveryRow);
}
