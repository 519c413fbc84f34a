import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServeProcess, startServeProcess } from '@agentlane/test-engines';
import pg from 'pg';
import type { BenchResult } from '../types';

const PG_URL = process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://root@127.0.0.1:5432/test';
/** Runs created per measurement, by this many concurrent clients. */
const RUNS = Number(process.env.FAULTS_RUNS_CREATED ?? 1500);
/** Creations per process before the measurement. */
const WARMUP = 150;
const CLIENTS = 24;

async function post(url: string, body: unknown): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/** run.create through `processes` serve processes on one PostgreSQL database: runs created per second. */
async function createThrough(processes: number, configPath: string): Promise<number> {
  const schema = `bench_runs_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const db = `${PG_URL}?schema=${schema}`;
  const servers: ServeProcess[] = [];
  try {
    // One at a time: the first applies the migrations.
    for (let i = 0; i < processes; i++) {
      servers.push(await startServeProcess(['--port', '0', '--db', db, '--config', configPath], 120_000));
    }
    const health = (await (await fetch(`${servers[0]?.api}/health`)).json()) as {
      engines: { name: string }[];
    };
    const engine = health.engines[0]?.name ?? 'replay';
    const threads: string[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const res = await fetch(`${servers[i % processes]?.api}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ engine, title: `bench ${i}` }),
      });
      threads.push(((await res.json()) as { session: { id: string } }).session.id);
    }
    let failed = 0;
    /** `count` creations by the concurrent clients, spread over the servers; seconds taken. */
    const create = async (count: number): Promise<number> => {
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        threads.map(async (threadId, c) => {
          while (next < count) {
            next++;
            const server = servers[(c + next) % processes] as ServeProcess;
            if ((await post(`${server.api}/threads/${threadId}/runs`, { prompt: 'x' })) !== 201) failed++;
          }
        }),
      );
      return (performance.now() - t0) / 1000;
    };
    // Every process warm first (its route compiled, its pool connected, JIT past the first requests): the
    // figure is creations at speed, not three cold starts against one.
    await create(WARMUP * processes);
    const seconds = await create(RUNS);
    if (failed > 0) throw new Error(`${failed} run.create failed: the figure would not be creations`);
    return RUNS / seconds;
  } finally {
    for (const s of servers) await s.kill();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await client.end();
  }
}

/** Run creation does not take a global lock: through 3 processes it is not slower than through 1. */
export async function run(): Promise<BenchResult[]> {
  const probe = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await probe.connect();
    await probe.end();
  } catch (err) {
    console.error(`[faults-runs] skipped: ${PG_URL} unreachable (${String(err)})`);
    return [];
  }
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-bench-runs-'));
  try {
    // Recorded replay sessions only (no model server): the engine is cheap, run.create is what is measured.
    const configPath = join(dir, 'config.json');
    // The clients are one local user creating 400 runs at once: the per-token caps (runs queued or running,
    // request rate) would refuse most of them, and a refusal is not a creation.
    const limits = { maxRunsPerToken: 100_000, requestsPerSecond: 100_000, requestBurst: 100_000 };
    // The runs go to an external engine (its turns would come in through POST /runs/:id/events): a claimed
    // run costs no CPU, so the figure is what creation costs, not three processes' engines competing for
    // the machine's cores with the clients.
    const engines = [{ name: 'external', type: 'external', label: 'runs executed elsewhere' }];
    writeFileSync(
      configPath,
      JSON.stringify({ workDir: dir, recordedSessions: false, engines, maxConcurrentRuns: 2, limits }),
    );
    const one = await createThrough(1, configPath);
    const three = await createThrough(3, configPath);
    const extra = `${RUNS} runs, ${CLIENTS} concurrent clients, PostgreSQL`;
    return [
      { name: 'faults: run.create through 1 process', unit: 'runs/s', value: one, extra },
      {
        name: 'faults: run.create through 3 processes',
        unit: 'runs/s',
        value: three,
        extra,
        ratio: three / one,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
