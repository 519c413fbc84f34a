import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { subscribeThread } from '@agentlane/client';
import { slowStream, startFakeModelServer } from '@agentlane/fake-model-server';
import { builtinServeConfig, type ServeProcess, startServeProcess } from '@agentlane/test-engines';
import { HttpTally } from './http-tally';
import { compareStreams, type FollowedRow, readThread } from './sse-follower';
import { standardSubscriber } from './standard-subscriber';

export interface KillCycleOptions {
  /** A SQLite path or a postgres:// URL (with ?schema=). */
  db: string;
  /** Servers on the database; the first is the one killed and started again, the others live on. */
  servers: number;
  cycles: number;
  /** Run lease and renewal of every server (ms). */
  leaseMs: number;
  renewMs: number;
  log?: (line: string) => void;
}

export interface KillCycleReport {
  cycles: number;
  runs: number;
  /** Per subscriber (eventsource package and the project's client, per thread), summed. */
  lost: number;
  duplicated: number;
  reordered: number;
  /** Subscribers whose latest revision per eventId (by deliverySeq) differs from a fresh full read. */
  subscribersDiffering: number;
  subscribers: number;
  rows: number;
  /** Runs still queued or running, and settled runs without a completion record, at the end. */
  runsStuck: number;
  runsNotCanonicalized: number;
  /** Runs the kills cut off, settled by a live process (or the restarted one): kill → settled, ms. */
  settleMs: number[];
  serverErrorsBut503: Record<string, number>;
}

type Row = FollowedRow;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The project's own client (`subscribeThread`: reconnects with backoff and the cursor it holds). */
function clientSubscriber(baseUrl: string, threadId: string): { rows: Row[]; close(): Promise<void> } {
  const rows: Row[] = [];
  const abort = new AbortController();
  const done = (async () => {
    try {
      for await (const event of subscribeThread({ baseUrl }, threadId, {
        after: 0,
        signal: abort.signal,
        backoff: { initialMs: 100, maxMs: 500 },
      })) {
        if ('event' in event) {
          rows.push({
            deliverySeq: event.deliverySeq,
            eventId: event.event.eventId,
            revision: event.revision,
          });
        }
      }
    } catch {
      // aborted at the end
    }
  })();
  return {
    rows,
    async close() {
      abort.abort();
      await done;
    },
  };
}

/** The latest revision of each eventId, in deliverySeq order: what a reader of the thread ends up holding. */
function latest(rows: readonly Row[]): string {
  const byId = new Map<string, Row>();
  for (const row of rows) {
    const seen = byId.get(row.eventId);
    if (!seen || row.revision > seen.revision) byId.set(row.eventId, row);
  }
  return JSON.stringify([...byId.values()].sort((a, b) => a.deliverySeq - b.deliverySeq));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once `ok()` holds (checked every 10 ms) or after `timeoutMs`, whichever comes first. */
async function until(ok: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok() && Date.now() < deadline) await sleep(10);
}

/**
 * Real `agentlane serve` processes on one database (the built-in engine on the fake model server streaming
 * slowly, and a replay engine), two threads each followed by a standard EventSource and by the project's
 * client on the first server, and runs created every cycle; each cycle SIGKILLs the first server while its
 * runs stream and starts it again on the same port. At the end every run must be settled and canonicalized
 * and every subscriber must hold exactly what a fresh full read shows.
 */
export async function runKillCycles(options: KillCycleOptions): Promise<KillCycleReport> {
  const log = options.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-kill-cycles-'));
  const fake = await startFakeModelServer({ scenario: slowStream({ chunks: 12, delayMs: 50 }) });
  const configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      ...builtinServeConfig({ fakeUrl: fake.url, workDir: dir, apiKey: 'k' }),
      recordedSessions: true,
    }),
  );
  const ports = await Promise.all(Array.from({ length: options.servers }, freePort));
  const start = (port: number) =>
    startServeProcess([
      '--port',
      String(port),
      '--db',
      options.db,
      '--config',
      configPath,
      '--run-lease-ms',
      String(options.leaseMs),
      '--run-lease-renew-ms',
      String(options.renewMs),
    ]);
  const servers: ServeProcess[] = [];
  const closers: (() => Promise<void> | void)[] = [];
  try {
    servers.push(...(await Promise.all(ports.map(start))));
    const api = (i: number) => `http://127.0.0.1:${ports[i]}/api/harness`;
    const tally = new HttpTally();
    const health = (await tally.request(`${api(0)}/health`)).json as { engines: { name: string }[] };
    const replay = health.engines.find((e) => e.name !== 'builtin')?.name;
    if (!replay) throw new Error('no replay engine among the recorded sessions');
    const threads: string[] = [];
    for (const engine of ['builtin', replay]) {
      const created = await tally.post(`${api(0)}/sessions`, { engine, title: `kill cycles ${engine}` });
      threads.push((created.json as { session: { id: string } }).session.id);
    }
    const standard = threads.map((id) => standardSubscriber(`${api(0)}/threads/${id}/events?after=0`));
    const clients = threads.map((id) => clientSubscriber(api(0), id));
    closers.push(
      () => {
        for (const s of standard) s.close();
      },
      async () => {
        for (const c of clients) await c.close();
      },
    );

    const runIds: string[] = [];
    /** run.create with an Idempotency-Key, retried (any server) until a process answers. */
    const createRun = async (threadId: string, prompt: string) => {
      const key = randomUUID();
      for (let attempt = 0; attempt < 100; attempt++) {
        const server = Math.floor(Math.random() * options.servers);
        const res = await tally.post(
          `${api(server)}/threads/${threadId}/runs`,
          { prompt },
          {
            'idempotency-key': key,
          },
        );
        if (res.status === 200 || res.status === 201) {
          const runId = (res.json as { run: { runId: string } }).run.runId;
          if (!runIds.includes(runId)) runIds.push(runId);
          return;
        }
        await sleep(100);
      }
      throw new Error('run.create got no answer from any server');
    };

    const kills: number[] = [];
    const rowsHeard = () => clients.reduce((n, c) => n + c.rows.length, 0);
    for (let cycle = 0; cycle < options.cycles; cycle++) {
      const heardBefore = rowsHeard();
      await Promise.all(threads.map((id, i) => createRun(id, `cycle ${cycle} thread ${i}: tell a story`)));
      // Killed at a random point of the runs' lives, waited for on what the subscribers hear (no fixed
      // pause): at once (queued, just claimed), or once 1 to ~1.5 runs' worth of their rows streamed.
      const target = heardBefore + Math.floor(Math.random() * 20);
      await until(() => rowsHeard() >= target, 5000);
      kills.push(Date.now());
      await servers[0]?.kill();
      servers[0] = await start(ports[0] as number);
      log(`[faults] kill cycle ${cycle + 1}/${options.cycles} (${runIds.length} runs)`);
    }

    // Everything settles: no run left queued or running, every run canonicalized.
    type RunView = {
      status: string;
      canonicalizedAt: string | null;
      endedAt: string | null;
      error: string | null;
    };
    const views = new Map<string, RunView>();
    const deadline = Date.now() + 60_000;
    for (;;) {
      for (const runId of runIds.filter((id) => !views.get(id)?.canonicalizedAt)) {
        const res = await tally.request(`${api(0)}/runs/${runId}`);
        if (res.status === 200) views.set(runId, (res.json as { run: RunView }).run);
      }
      const open = runIds.filter((id) => !views.get(id)?.canonicalizedAt);
      if (open.length === 0 || Date.now() > deadline) break;
      await sleep(100);
    }
    const runsStuck = runIds.filter((id) => {
      const status = views.get(id)?.status;
      return status !== 'completed' && status !== 'failed';
    }).length;
    const runsNotCanonicalized = runIds.filter((id) => !views.get(id)?.canonicalizedAt).length;
    const settleMs: number[] = [];
    for (const view of views.values()) {
      if (!view.error?.startsWith('engine process lost') || !view.endedAt) continue;
      const ended = Date.parse(view.endedAt);
      const kill = kills.filter((k) => k <= ended).at(-1);
      if (kill !== undefined) settleMs.push(ended - kill);
    }

    // Each subscriber against a fresh full read of its thread (once it caught up with the head).
    const report = { lost: 0, duplicated: 0, reordered: 0, subscribersDiffering: 0, rows: 0 };
    const subscribers = threads.flatMap((id, i) => [
      { id, rows: standard[i]?.rows ?? [] },
      { id, rows: clients[i]?.rows ?? [] },
    ]);
    for (const { id, rows } of subscribers) {
      const fresh = await readThread(`${api(options.servers - 1)}/threads/${id}/events?after=0`);
      const head = fresh.reduce((m, r) => Math.max(m, r.deliverySeq), 0);
      const until = Date.now() + 20_000;
      while (rows.reduce((m, r) => Math.max(m, r.deliverySeq), 0) < head && Date.now() < until)
        await sleep(50);
      const c = compareStreams(rows, fresh);
      report.lost += c.lost;
      report.duplicated += c.duplicated;
      report.reordered += c.reordered;
      report.rows += fresh.length;
      if (latest(rows) !== latest(fresh)) report.subscribersDiffering++;
    }
    return {
      cycles: options.cycles,
      runs: runIds.length,
      ...report,
      subscribers: subscribers.length,
      runsStuck,
      runsNotCanonicalized,
      settleMs,
      serverErrorsBut503: tally.serverErrorsBut503(),
    };
  } finally {
    for (const close of closers.reverse()) await close();
    for (const s of servers) await s.kill();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The p-th percentile (0..100) of a list of numbers; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}
