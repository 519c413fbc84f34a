import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresStore, createSqliteStore, type Store } from '@agentlane/store';
import Database from 'better-sqlite3';
import pg from 'pg';
import { DELTA_TEXT } from './fixtures';

export const PG_URL = process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The columns of canonical_events: the baseline inserts the very same row shape. */
export const ROW_COLUMNS = [
  'thread_id',
  'delivery_seq',
  'event_id',
  'revision',
  'run_id',
  'seq',
  'kind',
  'schema_version',
  'event',
  'content_hash',
  'provisional',
  'namespace',
  'created_at',
] as const;

export type PlainRow = [
  string,
  number,
  string,
  number,
  string,
  number,
  string,
  number,
  string,
  string,
  number,
  null,
  string,
];

/** A plain table shaped like canonical_events (same key and unique index), for the baselines. */
const PLAIN_TABLE = `CREATE TABLE IF NOT EXISTS bench_plain (
  thread_id TEXT NOT NULL, delivery_seq BIGINT NOT NULL, event_id TEXT NOT NULL, revision INTEGER NOT NULL,
  run_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, schema_version INTEGER NOT NULL,
  event TEXT NOT NULL, content_hash TEXT NOT NULL, provisional INTEGER NOT NULL, namespace TEXT,
  created_at TEXT NOT NULL, PRIMARY KEY (thread_id, delivery_seq), UNIQUE (event_id, revision))`;

export interface Backend {
  name: 'sqlite' | 'postgres';
  store: Store;
  /** Plain batched INSERT of rows into bench_plain, one transaction per batch, same driver and durability. */
  plainInsert(rows: PlainRow[]): Promise<void>;
  /**
   * SQLite only: the same plain batched INSERTs, but into the store's own tables (canonical_events with its
   * indexes and append-only trigger; with `frames`, also each row's native frame into source_frames): what the
   * schema alone costs, with no lane or store code in between.
   */
  plainInsertIntoSchema?(rows: PlainRow[], frames: [string, number, string, string][] | null): Promise<void>;
  /** A plain SELECT of a thread's rows in deliverySeq order from canonical_events; returns the count. */
  plainSelect(threadId: string): Promise<number>;
  /**
   * Fills a thread's canonical_events with `count` message.delta rows by bulk insert, bypassing the store's
   * per-row revision checks (the rows are exactly what appendEvents would write), and moves the thread head.
   */
  bulkLoad(threadId: string, runId: string, count: number): Promise<void>;
  /** What durability the backend runs with, for the report. */
  durability(): Promise<string>;
  close(): Promise<void>;
}

export async function sqliteBackend(dir?: string): Promise<Backend> {
  const root = mkdtempSync(join(dir ?? tmpdir(), 'agentlane-bench-'));
  const path = join(root, 'bench.db');
  const store = createSqliteStore({ path });
  await store.migrate();
  // The baseline's own connection: same driver, WAL, synchronous=FULL (the store's default).
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 10000');
  // Foreign keys off, as the store's own group commits of 64 rows or more run (the plain table has none); set
  // once, since changing it recompiles every prepared statement.
  db.pragma('foreign_keys = OFF');
  db.exec(PLAIN_TABLE);
  const insert = db.prepare(
    `INSERT INTO bench_plain (${ROW_COLUMNS.join(',')}) VALUES (${ROW_COLUMNS.map(() => '?').join(',')})`,
  );
  const insertMany = db.transaction((rows: PlainRow[]) => {
    for (const r of rows) insert.run(...r);
  });
  const insertCanonical = db.prepare(
    `INSERT INTO canonical_events (${ROW_COLUMNS.join(',')}) VALUES (${ROW_COLUMNS.map(() => '?').join(',')})`,
  );
  const insertFrame = db.prepare(
    'INSERT INTO source_frames (run_id, native_seq, received_at, frame) VALUES (?, ?, ?, ?)',
  );
  const insertIntoSchema = db.transaction(
    (rows: PlainRow[], frames: [string, number, string, string][] | null) => {
      for (const r of rows) insertCanonical.run(...r);
      if (frames) for (const f of frames) insertFrame.run(...f);
    },
  );
  const select = db.prepare('SELECT * FROM canonical_events WHERE thread_id = ? ORDER BY delivery_seq');
  const insertEvent = db.prepare(
    `INSERT INTO canonical_events (${ROW_COLUMNS.join(',')}) VALUES (${ROW_COLUMNS.map(() => '?').join(',')})`,
  );
  const load = db.transaction((threadId: string, runId: string, from: number, to: number) => {
    const ts = new Date().toISOString();
    for (let i = from; i < to; i++) {
      const e = replayEvent(threadId, runId, i, ts);
      insertEvent.run(
        threadId,
        i + 1,
        e.eventId,
        1,
        runId,
        i + 1,
        'message.delta',
        1,
        JSON.stringify(e),
        '',
        0,
        null,
        ts,
      );
    }
  });
  // The store starts a checkpointer thread (a new isolate loading the driver): let it come up before anything
  // is measured, or its start-up shares the CPU with whichever measurement runs first on this database.
  await new Promise((r) => setTimeout(r, 150));
  return {
    name: 'sqlite',
    store,
    async plainInsert(rows) {
      insertMany(rows);
    },
    async plainInsertIntoSchema(rows, frames) {
      insertIntoSchema(rows, frames);
    },
    async plainSelect(threadId) {
      let n = 0;
      for (const _row of select.iterate(threadId)) n++;
      return n;
    },
    async bulkLoad(threadId, runId, count) {
      for (let i = 0; i < count; i += 50_000) load(threadId, runId, i, Math.min(count, i + 50_000));
      db.prepare('UPDATE thread_heads SET head = ? WHERE thread_id = ?').run(count, threadId);
    },
    async durability() {
      return `sqlite WAL synchronous=${String(db.pragma('synchronous', { simple: true }))} (2=FULL)`;
    },
    async close() {
      db.close();
      await store.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export async function postgresAvailable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function postgresBackend(): Promise<Backend> {
  const schema = `bench_${Math.random().toString(36).slice(2, 10)}`;
  const store = createPostgresStore({ url: PG_URL, schema });
  await store.migrate();
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`SET search_path TO "${schema}"`);
  await client.query(PLAIN_TABLE);
  const width = ROW_COLUMNS.length;
  return {
    name: 'postgres',
    store,
    async plainInsert(rows) {
      // One multi-row INSERT per batch (PostgreSQL caps a statement at 65535 parameters: 13 × 1000 fits).
      const values = rows.map((_, r) => `(${ROW_COLUMNS.map((_c, c) => `$${r * width + c + 1}`).join(',')})`);
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO bench_plain (${ROW_COLUMNS.join(',')}) VALUES ${values.join(',')}`,
        rows.flat(),
      );
      await client.query('COMMIT');
    },
    async plainSelect(threadId) {
      // Keyset pages of 10,000 so a million rows never sit in memory at once.
      let n = 0;
      let after = 0;
      for (;;) {
        const res = await client.query({
          text: 'SELECT * FROM canonical_events WHERE thread_id = $1 AND delivery_seq > $2 ORDER BY delivery_seq LIMIT 10000',
          values: [threadId, after],
        });
        n += res.rowCount ?? 0;
        if ((res.rowCount ?? 0) < 10000) break;
        after = Number(res.rows[res.rows.length - 1].delivery_seq);
      }
      return n;
    },
    async bulkLoad(threadId, runId, count) {
      // Generated server-side in chunks: a million rows in seconds instead of minutes.
      const ts = new Date().toISOString();
      for (let from = 0; from < count; from += 100_000) {
        const to = Math.min(count, from + 100_000);
        await client.query(
          `INSERT INTO canonical_events (${ROW_COLUMNS.join(',')})
           SELECT $1, g + 1, 'ev_' || $2 || '_' || g, 1, $2, g + 1, 'message.delta', 1,
             '{"schemaVersion":1,"eventId":"ev_' || $2 || '_' || g || '","seq":' || (g + 1) || ',"runId":"' || $2 ||
             '","threadId":"' || $1 || '","turnId":"' || $2 || '","ts":"' || $3 || '","identity":{"provider":"bench"},' ||
             '"kind":"message.delta","payload":{"messageId":"m1","partId":"p' || g || '","delta":"' || $4 || '"}}',
             '', 0, NULL, $3
           FROM generate_series($5::bigint, $6::bigint) AS g`,
          [threadId, runId, ts, DELTA_TEXT, from, to - 1],
        );
      }
      await client.query('UPDATE thread_heads SET head = $1 WHERE thread_id = $2', [count, threadId]);
      // Freshly loaded rows make their first reader set hint bits (writes): settle that before anyone measures.
      await client.query('VACUUM (ANALYZE) canonical_events');
    },
    async durability() {
      const res = await client.query('SHOW synchronous_commit');
      return `postgres synchronous_commit=${String(res.rows[0]?.synchronous_commit)}`;
    },
    async close() {
      await store.close();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** The canonical event of replay row i, as the lane would have built it. */
export function replayEvent(threadId: string, runId: string, i: number, ts: string) {
  return {
    schemaVersion: 1,
    eventId: `ev_${runId}_${i}`,
    seq: i + 1,
    runId,
    threadId,
    turnId: runId,
    ts,
    identity: { provider: 'bench' },
    kind: 'message.delta',
    payload: { messageId: 'm1', partId: `p${i}`, delta: DELTA_TEXT },
  };
}
