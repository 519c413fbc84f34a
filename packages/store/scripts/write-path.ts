// Quick write-path figures for the store (the formal lane benchmark lives in bench/):
//   node --conditions=agentlane-source --import tsx packages/store/scripts/write-path.ts [events=20000]
// appendEvents with batches of 1000 events, default durability, on SQLite (temp file) and PostgreSQL
// (a throwaway schema; skipped when AGENTLANE_TEST_PG_URL's server is unreachable).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CanonicalEvent } from '@agentlane/contract';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createPostgresStore, createSqliteStore, type EventWrite, type Store } from '../src/index';

const TOTAL = Number(process.argv[2] ?? 20_000);
const BATCH = 1000;
const PG_URL = process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function batch(threadId: string, runId: string, from: number): EventWrite[] {
  return Array.from({ length: BATCH }, (_, i) => {
    const seq = from + i;
    const event: CanonicalEvent = {
      schemaVersion: 1,
      eventId: `${runId}:${seq}`,
      seq,
      runId,
      threadId,
      turnId: 't1',
      ts: new Date().toISOString(),
      identity: { provider: 'bench' },
      kind: 'message.delta',
      payload: { messageId: 'm1', partId: 'p1', delta: `token ${seq} `.repeat(4) },
    };
    return { event };
  });
}

const BASELINE_TABLE = `CREATE TABLE IF NOT EXISTS plain_events (thread_id TEXT NOT NULL, delivery_seq BIGINT NOT NULL,
  event_id TEXT NOT NULL, revision INTEGER NOT NULL, run_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL,
  schema_version INTEGER NOT NULL, event TEXT NOT NULL, provisional INTEGER NOT NULL,
  PRIMARY KEY (thread_id, delivery_seq), UNIQUE (event_id, revision))`;

function baselineRows(from: number): (string | number)[][] {
  return batch('bench', 'run_plain', from).map((w, i) => [
    'bench',
    from + i + 1,
    w.event.eventId,
    1,
    w.event.runId,
    w.event.seq,
    w.event.kind,
    1,
    JSON.stringify(w.event),
    1,
  ]);
}

/** The baseline: plain batched INSERTs of the same rows, same driver and durability, 1000 per transaction. */
async function baselineSqlite(path: string, round: number): Promise<number> {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(BASELINE_TABLE);
  const insert = db.prepare('INSERT INTO plain_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const write = db.transaction((rows: (string | number)[][]) => {
    for (const row of rows) insert.run(...row);
  });
  const start = performance.now();
  for (let n = 0; n < TOTAL; n += BATCH) write(baselineRows(round * TOTAL + n));
  const rate = (TOTAL / (performance.now() - start)) * 1000;
  db.close();
  return rate;
}

async function baselinePostgres(schema: string, round: number): Promise<number> {
  const client = new pg.Client({
    connectionString: PG_URL,
    options: `-c search_path=${schema} -c synchronous_commit=on`,
  });
  await client.connect();
  await client.query(BASELINE_TABLE);
  const start = performance.now();
  for (let n = 0; n < TOTAL; n += BATCH) {
    const rows = baselineRows(round * TOTAL + n);
    await client.query(
      'INSERT INTO plain_events SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::int[], $5::text[], $6::int[], $7::text[], $8::int[], $9::text[], $10::int[])',
      Array.from({ length: 10 }, (_, c) => rows.map((r) => r[c])),
    );
  }
  const rate = (TOTAL / (performance.now() - start)) * 1000;
  await client.end();
  return rate;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function measure(
  label: string,
  store: Store,
  baseline: (round: number) => Promise<number>,
): Promise<void> {
  await store.createThread({ threadId: 'bench', engine: 'bench', title: null, workDir: null, metadata: {} });
  const { run } = await store.createRun({ threadId: 'bench', prompt: 'bench' });
  // Sequential: one caller, one transaction per 1000-event batch; alternated with the baseline, median of 3.
  const seqRates: number[] = [];
  const plainRates: number[] = [];
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now();
    for (let n = 0; n < TOTAL; n += BATCH)
      await store.appendEvents('bench', batch('bench', run.runId, 10 * TOTAL + round * TOTAL + n), true);
    seqRates.push((TOTAL / (performance.now() - t0)) * 1000);
    plainRates.push(await baseline(round));
  }
  const sequential = median(seqRates);
  const plain = median(plainRates);
  let start = performance.now();
  // Concurrent: 8 callers at once; group commit folds their batches into shared transactions.
  start = performance.now();
  const calls: Promise<unknown>[] = [];
  for (let n = 0; n < TOTAL; n += BATCH)
    calls.push(store.appendEvents('bench', batch('bench', run.runId, TOTAL + n), true));
  await Promise.all(calls);
  const concurrent = (TOTAL / (performance.now() - start)) * 1000;
  // Single small appends, one at a time: the commit latency a lone event pays.
  const lat: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await store.appendEvents('bench', batch('bench', run.runId, 3 * TOTAL + i * BATCH).slice(0, 1), true);
    lat.push(performance.now() - t);
  }
  lat.sort((a, b) => a - b);
  start = performance.now();
  let after = 0;
  let read = 0;
  for (;;) {
    const rows = await store.readEvents('bench', after, 1000);
    if (rows.length === 0) break;
    read += rows.length;
    after = rows[rows.length - 1]?.deliverySeq ?? after;
  }
  const replay = (read / (performance.now() - start)) * 1000;
  console.log(
    `${label.padEnd(9)} baseline plain batched INSERT x${BATCH}: ${plain.toFixed(0)} events/s (store sequential / baseline = ${(sequential / plain).toFixed(2)})`,
  );
  console.log(
    `${label.padEnd(9)} appendEvents x${BATCH}: ${sequential.toFixed(0)} events/s sequential, ${concurrent.toFixed(0)} events/s 8 concurrent callers; ` +
      `1-event append p50 ${lat[100]?.toFixed(2)} ms p99 ${lat[198]?.toFixed(2)} ms; readEvents replay ${replay.toFixed(0)} rows/s (${read} rows)`,
  );
}

const dir = await mkdtemp(join(tmpdir(), 'agentlane-write-path-'));
const sqlite = createSqliteStore({ path: join(dir, 'store.db') });
await sqlite.migrate();
await measure('sqlite', sqlite, (round) => baselineSqlite(join(dir, 'plain.db'), round));
await sqlite.close();
await rm(dir, { recursive: true, force: true });

const schema = `agentlane_bench_${randomBytes(4).toString('hex')}`;
const postgres = createPostgresStore({ url: PG_URL, schema });
try {
  await postgres.migrate();
  await measure('postgres', postgres, (round) => baselinePostgres(schema, round));
} catch (error) {
  console.log(`postgres skipped: ${(error as Error).message}`);
} finally {
  await postgres.close();
  const client = new pg.Client({ connectionString: PG_URL });
  await client
    .connect()
    .then(() => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))
    .catch(() => {});
  await client.end().catch(() => {});
}
