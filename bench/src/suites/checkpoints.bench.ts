import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { agentlanePg, agentlaneSqlite, agentlaneSqliteNormal } from '../checkpoints/agentlane';
import { langgraphPg, langgraphSqlite } from '../checkpoints/langgraph';
import { percentile, SAMPLE_AT, type Timings, TURNS } from '../checkpoints/workload';
import type { BenchResult } from '../types';

/**
 * agentlane's checkpoint savers vs LangGraph's on the same backend, same session: 500 turns, each appends
 * one ~1 KB message and updates three small channels. Times are per call (ms); bytes are what the
 * backend holds (SQLite: used pages of the file; PostgreSQL: pg_total_relation_size of the tables).
 */
export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-bench-cp-'));
  try {
    const sqliteBytes = (file: string) => () => {
      const db = new Database(file, { readonly: true });
      try {
        const pages =
          Number(db.pragma('page_count', { simple: true })) -
          Number(db.pragma('freelist_count', { simple: true }));
        return pages * Number(db.pragma('page_size', { simple: true }));
      } finally {
        db.close();
      }
    };
    const ours = await agentlaneSqlite(join(dir, 'agentlane.db'), sqliteBytes(join(dir, 'agentlane.db')));
    const theirs = await langgraphSqlite(join(dir, 'langgraph.db'), sqliteBytes(join(dir, 'langgraph.db')));
    results.push(...compare('sqlite', ours, theirs));
    const normal = await agentlaneSqliteNormal(join(dir, 'agentlane-normal.db'));
    for (const p of [50, 99]) {
      const mine = percentile(normal.put, p);
      const base = percentile(theirs.put, p);
      results.push({
        name: `checkpoints sqlite: put p${p} (agentlane, synchronous=NORMAL like langgraph)`,
        unit: 'ms',
        value: round(mine),
        extra: `${TURNS} turns; same durability setting as LangGraph's saver`,
        ratio: round(base / mine),
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const url = process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch (error) {
    console.log(`checkpoints bench: PostgreSQL skipped, unreachable at ${url}: ${(error as Error).message}`);
    return results;
  }
  const suffix = Math.random().toString(36).slice(2, 8);
  const schemas = { ours: `bench_cp_agentlane_${suffix}`, theirs: `bench_cp_langgraph_${suffix}` };
  const schemaBytes = (schema: string) => async () => {
    const r = await admin.query<{ bytes: string }>(
      `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [schema],
    );
    return Number(r.rows[0]?.bytes ?? 0);
  };
  try {
    const ours = await agentlanePg(url, schemas.ours, schemaBytes(schemas.ours));
    const theirs = await langgraphPg(url, schemas.theirs, schemaBytes(schemas.theirs));
    results.push(...compare('postgres', ours, theirs));
  } finally {
    for (const schema of Object.values(schemas))
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
  return results;
}

function compare(backend: string, ours: Timings, theirs: Timings): BenchResult[] {
  const out: BenchResult[] = [];
  const pair = (metric: string, unit: string, mine: number, base: number, extra: string) => {
    out.push({ name: `checkpoints ${backend}: ${metric} (langgraph)`, unit, value: round(base), extra });
    out.push({
      name: `checkpoints ${backend}: ${metric} (agentlane)`,
      unit,
      value: round(mine),
      extra,
      ratio: round(base / mine),
    });
  };
  const over = `${TURNS} turns`;
  for (const p of [50, 99]) {
    pair(`put p${p}`, 'ms', percentile(ours.put, p), percentile(theirs.put, p), over);
  }
  for (const p of [50, 99]) {
    pair(
      `get-latest p${p}`,
      'ms',
      percentile(ours.get, p),
      percentile(theirs.get, p),
      `${over}; same saver that wrote`,
    );
  }
  for (const p of [50, 99]) {
    pair(
      `get-latest cold p${p}`,
      'ms',
      percentile(ours.getCold ?? [], p),
      percentile(theirs.get, p),
      `${over}; agentlane reader without cache (hydrates the delta chain)`,
    );
  }
  for (const turn of SAMPLE_AT) {
    pair(
      `bytes at turn ${turn}`,
      'bytes',
      ours.bytesAt[turn] ?? 0,
      theirs.bytesAt[turn] ?? 0,
      'stored size incl. indexes',
    );
  }
  return out;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
