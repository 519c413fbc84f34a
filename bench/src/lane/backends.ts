import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresStore, createSqliteStore, type Store } from '@agentlane/store';
import Database from 'better-sqlite3';
import pg from 'pg';

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
  /** A plain SELECT of a thread's rows in deliverySeq order from canonical_events; returns the count. */
  plainSelect(threadId: string): Promise<number>;
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
  db.exec(PLAIN_TABLE);
  const insert = db.prepare(
    `INSERT INTO bench_plain (${ROW_COLUMNS.join(',')}) VALUES (${ROW_COLUMNS.map(() => '?').join(',')})`,
  );
  const insertMany = db.transaction((rows: PlainRow[]) => {
    for (const r of rows) insert.run(...r);
  });
  const select = db.prepare('SELECT * FROM canonical_events WHERE thread_id = ? ORDER BY delivery_seq');
  return {
    name: 'sqlite',
    store,
    async plainInsert(rows) {
      insertMany(rows);
    },
    async plainSelect(threadId) {
      let n = 0;
      for (const _row of select.iterate(threadId)) n++;
      return n;
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
