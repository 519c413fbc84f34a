import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeModelServer } from '@agentlane/fake-model-server';
import { builtinServeConfig, startServeProcess } from '@agentlane/test-engines';
import Database from 'better-sqlite3';
import { createParser } from 'eventsource-parser';
import { growth, tableBytes } from './db-breakdown';
import { processCpuMs, processWriteBytes } from './proc';
import { longAnswer } from './workload';

export interface ServeRunFigures {
  /** Server CPU from run.create until the run is settled and canonicalized. */
  cpuMs: number;
  wallMs: number;
  healthP50: number;
  healthP99: number;
  healthMax: number;
  healthSamples: number;
  /** The three slowest probes: latency and when it was sent, as a fraction of the run's wall time. */
  healthSlowest: string;
  /** /health probes whose keep-alive connection was closed under them (asked again). */
  healthRetries: number;
  /** Growth of the database over the run: pages in use (rows and indexes the run added). */
  dbBytes: number;
  /** Growth per table and index (dbstat pages), largest first. */
  dbTables: [string, number][];
  /** Growth of the database files (main + WAL) over the run: the WAL holds every commit's pages until reused. */
  dbFileBytes: number;
  /** Bytes the server process wrote to storage over the run (/proc/<pid>/io), null where unreadable. */
  writeBytes: number | null;
  /** SSE bytes one follower of the thread received for the run. */
  sseBytes: number;
  /** Characters of the message.delta events the follower saw (a check that the whole answer arrived). */
  deltaChars: number;
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

const slowest = (latencies: number[], at: number[], wallMs: number): string =>
  latencies
    .map((ms, i) => ({ ms, when: (at[i] ?? 0) / wallMs }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 3)
    .map((s) => `${s.ms.toFixed(1)} ms at ${Math.round(s.when * 100)}%`)
    .join(', ');

const dbSize = (path: string): number =>
  [path, `${path}-wal`].reduce((n, p) => n + (existsSync(p) ? statSync(p).size : 0), 0);

async function json<T>(url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Follows a thread's SSE stream, counting its bytes and the characters of its message.delta events. */
function follow(url: string): { bytes: () => number; deltaChars: () => number; close: () => void } {
  const abort = new AbortController();
  let bytes = 0;
  let deltaChars = 0;
  const parser = createParser({
    onEvent: (e) => {
      if (!e.data.includes('"message.delta"')) return;
      const frame = JSON.parse(e.data) as { event?: { kind: string; payload: { delta?: string } } };
      if (frame.event?.kind === 'message.delta') deltaChars += frame.event.payload.delta?.length ?? 0;
    },
  });
  void (async () => {
    try {
      const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
    } catch {
      // closed by the bench
    }
  })();
  return { bytes: () => bytes, deltaChars: () => deltaChars, close: () => abort.abort() };
}

/** A running `agentlane serve` on its own SQLite database, answering long runs one at a time. */
export interface LongAnswerServer {
  /** One run of `chunks` chunks (the fake model is told what to stream), checked complete at the follower. */
  run(chunks: number): Promise<ServeRunFigures>;
  close(): Promise<void>;
}

/**
 * Real `agentlane serve` (its own process, SQLite, the built-in engine on `fake`). Each run gets a session
 * of its own, one SSE follower and a /health probe every 20 ms (one at a time); figures cover run.create
 * until the run is settled and canonicalized. A short run first: the engine's modules load on its first
 * turn, which is not what is measured.
 */
export async function startLongAnswerServer(fake: FakeModelServer): Promise<LongAnswerServer> {
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-long-answer-'));
  const db = join(dir, 'agentlane.db');
  const configPath = join(dir, 'config.json');
  const config = builtinServeConfig({ fakeUrl: fake.url, workDir: dir, apiKey: 'k' });
  // The whole answer is shown (the default turnTextBytes, 1 MB, sends the rest to an overflow file).
  const engines = (config.engines as Record<string, unknown>[]).map((e) => ({ ...e, turnTextBytes: 100e6 }));
  writeFileSync(configPath, JSON.stringify({ ...config, engines }));
  const serve = await startServeProcess(['--port', '0', '--db', db, '--config', configPath], 120_000);
  const pid = serve.child.pid as number;
  const reader = { db: null as Database.Database | null };
  const close = async () => {
    reader.db?.close();
    await serve.kill();
    if (process.env.BENCH_KEEP_DIR) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
  const run = async (chunks: number) => {
    const text = longAnswer(fake, chunks);
    try {
      reader.db ??= new Database(db, { readonly: true });
      const figures = await runOnce(serve, db, reader.db, pid, text.length);
      if (figures.deltaChars !== text.length)
        throw new Error(`the follower saw ${figures.deltaChars} of ${text.length} characters`);
      return figures;
    } catch (err) {
      throw new Error(`${String(err)}; agentlane serve printed: ${serve.output().slice(-2000)}`);
    }
  };
  try {
    await run(200);
  } catch (err) {
    await close();
    throw err;
  }
  return { run, close };
}

/** Bytes of the database's pages in use, as a reader sees it (committed rows, WAL included). */
function usedBytes(reader: Database.Database): number {
  const pages = Number(reader.pragma('page_count', { simple: true }));
  const free = Number(reader.pragma('freelist_count', { simple: true }));
  return (pages - free) * Number(reader.pragma('page_size', { simple: true }));
}

async function runOnce(
  serve: { api: string },
  db: string,
  reader: Database.Database,
  pid: number,
  expectChars: number,
): Promise<ServeRunFigures> {
  {
    const { session } = await json<{ session: { id: string } }>(`${serve.api}/sessions`, {
      engine: 'builtin',
      title: 'long answer',
    });
    const follower = follow(`${serve.api}/threads/${session.id}/events?after=0`);
    await new Promise((r) => setTimeout(r, 200));
    const probe = await startHealthProbe(`${serve.api}/health`);
    const sseBefore = follower.bytes();
    const dbBefore = dbSize(db);
    const usedBefore = usedBytes(reader);
    const tablesBefore = tableBytes(reader);
    const writeBefore = processWriteBytes(pid);
    const cpuBefore = processCpuMs(pid);
    const t0 = performance.now();
    const { run } = await json<{ run: { runId: string } }>(`${serve.api}/threads/${session.id}/runs`, {
      prompt: 'answer at length',
    });
    for (;;) {
      const view = await json<{ run: { status: string; canonicalizedAt?: string | null } }>(
        `${serve.api}/runs/${run.runId}`,
      );
      if ((view.run.status === 'completed' || view.run.status === 'failed') && view.run.canonicalizedAt) {
        if (view.run.status !== 'completed') throw new Error(`run ${run.runId} ${view.run.status}`);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const wallMs = performance.now() - t0;
    const cpuMs = processCpuMs(pid) - cpuBefore;
    const { samples: health, at: healthAt, retries: healthRetries } = await probe.stop();
    const writeAfter = processWriteBytes(pid);
    // The follower has the rows once they are committed; give the last frames a moment to arrive.
    for (let i = 0; i < 100 && follower.deltaChars() < expectChars; i++)
      await new Promise((r) => setTimeout(r, 50));
    follower.close();
    return {
      cpuMs,
      wallMs,
      healthP50: percentile(health, 50),
      healthP99: percentile(health, 99),
      healthMax: Math.max(...health),
      healthSlowest: slowest(health, healthAt, wallMs),
      healthSamples: health.length,
      healthRetries,
      dbBytes: usedBytes(reader) - usedBefore,
      dbTables: growth(tablesBefore, tableBytes(reader)),
      dbFileBytes: dbSize(db) - dbBefore,
      writeBytes: writeBefore === null || writeAfter === null ? null : writeAfter - writeBefore,
      sseBytes: follower.bytes() - sseBefore,
      deltaChars: follower.deltaChars(),
    };
  }
}

const child = fileURLToPath(new URL('./stream-text-child.ts', import.meta.url));
const probeChild = fileURLToPath(new URL('./health-probe-child.mjs', import.meta.url));

/** The /health probe in a process of its own (see health-probe-child.mjs); stop() returns its figures. */
interface ProbeFigures {
  samples: number[];
  at: number[];
  retries: number;
}

async function startHealthProbe(url: string): Promise<{ stop(): Promise<ProbeFigures> }> {
  const proc = spawn(process.execPath, [probeChild, url], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    proc.stdout.on('data', (d) => {
      out += d;
      if (out.startsWith('ready\n')) resolve();
    });
    void exited.then((code) => reject(new Error(`health-probe-child exited ${code}: ${out}`)));
  });
  return {
    async stop() {
      proc.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`health-probe-child exited ${code}: ${out}`);
      return JSON.parse(out.trim().split('\n').at(-1) as string) as ProbeFigures;
    },
  };
}

/** The baseline: the AI SDK's own streamText over the same fake stream, in a process of its own. */
export async function measureStreamText(fake: FakeModelServer): Promise<{ cpuMs: number; parts: number }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, `${fake.url}/v1`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (d) => {
    out += d;
  });
  const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
  if (code !== 0) throw new Error(`stream-text-child exited ${code}: ${out}`);
  return JSON.parse(out.trim().split('\n').at(-1) as string) as { cpuMs: number; parts: number };
}
