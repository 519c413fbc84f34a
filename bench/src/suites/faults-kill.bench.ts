import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KillCycleReport, percentile, runKillCycles } from '@agentlane/testing-faults';
import pg from 'pg';
import type { BenchResult } from '../types';

/** FAULTS_BENCH_CYCLES (default 100) SIGKILL/restart cycles per backend while runs stream. */
const CYCLES = Number(process.env.FAULTS_BENCH_CYCLES ?? 100);
const PG_URL = process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://root@127.0.0.1:5432/test';
// The serve defaults: a dead process's runs are settled by another within the lease plus one renewal.
const LEASE = { leaseMs: 10_000, renewMs: 2_000 };

function figures(label: string, r: KillCycleReport): BenchResult[] {
  const extra = `${r.runs} runs, ${r.rows} rows, ${r.subscribers} subscribers (eventsource + client), lease ${LEASE.leaseMs} ms / renew ${LEASE.renewMs} ms`;
  return [
    { name: `faults ${label}: kill cycles survived`, unit: 'cycles', value: r.cycles, extra },
    { name: `faults ${label}: events lost`, unit: 'events', value: r.lost },
    { name: `faults ${label}: events duplicated`, unit: 'events', value: r.duplicated },
    { name: `faults ${label}: events reordered`, unit: 'events', value: r.reordered },
    { name: `faults ${label}: runs stuck`, unit: 'runs', value: r.runsStuck + r.runsNotCanonicalized },
    {
      name: `faults ${label}: dead process's runs settled, p50`,
      unit: 'ms',
      value: percentile(r.settleMs, 50),
    },
    {
      name: `faults ${label}: dead process's runs settled, p99`,
      unit: 'ms',
      value: percentile(r.settleMs, 99),
    },
  ];
}

/** FAULTS_BENCH_BACKENDS=sqlite or =postgres runs one backend (two processes can share the work); default both. */
const BACKENDS = (process.env.FAULTS_BENCH_BACKENDS ?? 'sqlite,postgres').split(',');

/** Kill cycles on SQLite (one server, started again) and PostgreSQL (one of three killed and started again). */
export async function run(): Promise<BenchResult[]> {
  const log = (line: string) => console.error(line);
  const results: BenchResult[] = [];
  if (BACKENDS.includes('sqlite')) {
    const dir = mkdtempSync(join(tmpdir(), 'agentlane-bench-kill-'));
    try {
      const sqlite = await runKillCycles({
        db: join(dir, 'a.db'),
        servers: 1,
        cycles: CYCLES,
        ...LEASE,
        log,
      });
      results.push(...figures('SQLite', sqlite));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (!BACKENDS.includes('postgres')) return results;
  const schema = `bench_kill_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
  } catch (err) {
    console.error(`[faults-kill] PostgreSQL skipped: ${PG_URL} unreachable (${String(err)})`);
    return results;
  }
  try {
    const pgReport = await runKillCycles({
      db: `${PG_URL}?schema=${schema}`,
      servers: 3,
      cycles: CYCLES,
      ...LEASE,
      log,
    });
    results.push(...figures('PostgreSQL 1 of 3', pgReport));
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await client.end();
  }
  return results;
}
