import { randomUUID } from 'node:crypto';
import { type ServeProcess, startServeProcess } from '@agentlane/test-engines';
import { startBuiltinFixture } from './builtin-fixture';
import { clientSubscriber } from './client-subscriber';
import { freePort } from './free-port';
import { HttpTally } from './http-tally';
import { compareSubscribers, settleRuns, sleep } from './kill-cycle-checks';
import { runOwnerPid } from './run-owner';
import { standardSubscriber } from './standard-subscriber';

export interface KillCycleOptions {
  /** A SQLite path or a postgres:// URL (with ?schema=). */
  db: string;
  /**
   * Servers on the database. Each cycle kills the first (its subscribers are cut off) and the one streaming
   * the built-in run when that is another (PostgreSQL only: its owner is read from the database); the
   * others live on.
   */
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

/** Resolves once `ok()` holds (checked every 10 ms) or after `timeoutMs`, whichever comes first. */
async function until(ok: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok() && Date.now() < deadline) await sleep(10);
}

/** `agentlane serve` on a fixed port (a restarted server comes back where it was), with the cycles' lease. */
function serveArgs(options: KillCycleOptions, port: number, configPath: string): string[] {
  return [
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
  ];
}

/** Two threads: one on the built-in engine, one on a replay engine of the recorded sessions. */
async function openThreads(tally: HttpTally, api: string): Promise<string[]> {
  const health = (await tally.request(`${api}/health`)).json as { engines: { name: string }[] };
  const replay = health.engines.find((e) => e.name !== 'builtin')?.name;
  if (!replay) throw new Error('no replay engine among the recorded sessions');
  const threads: string[] = [];
  for (const engine of ['builtin', replay]) {
    const created = await tally.post(`${api}/sessions`, { engine, title: `kill cycles ${engine}` });
    threads.push((created.json as { session: { id: string } }).session.id);
  }
  return threads;
}

/**
 * run.create with an Idempotency-Key, first on `first` when given, then retried on any server until a
 * process answers; resolves with the run id.
 */
async function createRunAnywhere(
  tally: HttpTally,
  apis: readonly string[],
  threadId: string,
  prompt: string,
  first?: string,
) {
  const key = randomUUID();
  for (let attempt = 0; attempt < 100; attempt++) {
    const api = attempt === 0 && first ? first : apis[Math.floor(Math.random() * apis.length)];
    const res = await tally.post(`${api}/threads/${threadId}/runs`, { prompt }, { 'idempotency-key': key });
    if (res.status === 200 || res.status === 201) return (res.json as { run: { runId: string } }).run.runId;
    await sleep(100);
  }
  throw new Error('run.create got no answer from any server');
}

/** Resolves once the run is completed or failed (asked of `api` every 100 ms), or after 20 s. */
async function untilSettled(tally: HttpTally, api: string, runId: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const res = await tally.request(`${api}/runs/${runId}`);
    const status = res.status === 200 ? (res.json as { run: { status: string } }).run.status : undefined;
    if (status === 'completed' || status === 'failed') return;
    await sleep(100);
  }
}

interface Cycling {
  options: KillCycleOptions;
  threads: readonly string[];
  createRun(threadId: string, prompt: string): Promise<void>;
  /** Resolves once the last cycle's run on the killed server's thread is settled (the thread is free). */
  threadFree(): Promise<void>;
  /** Rows the project's client of that thread heard so far. */
  rowsHeard(): number;
  runCount(): number;
  /** SIGKILLs the first server and the built-in run's owner, and starts them again on their ports. */
  restartVictims(): Promise<void>;
}

/** Each cycle creates a run per thread, then kills the first server while they stream; resolves with the kill times. */
async function killCycles(cycling: Cycling) {
  const { options, threads, createRun, threadFree, rowsHeard, runCount, restartVictims } = cycling;
  const log = options.log ?? (() => {});
  const kills: number[] = [];
  for (let cycle = 0; cycle < options.cycles; cycle++) {
    await threadFree();
    const heardBefore = rowsHeard();
    await Promise.all(threads.map((id, i) => createRun(id, `cycle ${cycle} thread ${i}: tell a story`)));
    // Killed at a random point of the built-in run's life, waited for on what its subscriber hears (no fixed
    // pause): at once (just claimed), or once some of its ~20 rows streamed.
    const target = heardBefore + Math.floor(Math.random() * 16);
    await until(() => rowsHeard() >= target, 5000);
    kills.push(Date.now());
    await restartVictims();
    log(`[faults] kill cycle ${cycle + 1}/${options.cycles} (${runCount()} runs)`);
  }
  return kills;
}

/**
 * Real `agentlane serve` processes on one database (the built-in engine on the fake model server streaming
 * slowly, and a replay engine), two threads each followed by a standard EventSource and by the project's
 * client on the first server, and runs created every cycle; each cycle SIGKILLs the first server while its
 * runs stream and starts it again on the same port. At the end every run must be settled and canonicalized
 * and every subscriber must hold exactly what a fresh full read shows.
 */
export async function runKillCycles(options: KillCycleOptions): Promise<KillCycleReport> {
  const fixture = await startBuiltinFixture(
    'agentlane-kill-cycles-',
    { chunks: 12, delayMs: 50 },
    { recordedSessions: true },
  );
  const ports = await Promise.all(Array.from({ length: options.servers }, freePort));
  const start = (port: number) => startServeProcess(serveArgs(options, port, fixture.configPath));
  const apis = ports.map((port) => `http://127.0.0.1:${port}/api/harness`);
  const servers: ServeProcess[] = [];
  const closers: (() => Promise<void> | void)[] = [];
  try {
    servers.push(...(await Promise.all(ports.map(start))));
    const tally = new HttpTally();
    const threads = await openThreads(tally, apis[0] as string);
    const standard = threads.map((id) => standardSubscriber(`${apis[0]}/threads/${id}/events?after=0`));
    const clients = threads.map((id) => clientSubscriber(apis[0] as string, id));
    closers.push(
      () => {
        for (const s of standard) s.close();
      },
      async () => {
        for (const c of clients) await c.close();
      },
    );
    const runIds: string[] = [];
    let lastBuiltin: string | undefined;
    const kills = await killCycles({
      options,
      threads,
      async createRun(threadId, prompt) {
        // The built-in thread's run goes to the first server, which most often claims it at once; when
        // another server polled first, that one is killed too (restartVictims), so every kill that finds the
        // run streaming cuts it off. Left to chance, a loaded CI run once cut none in 20 cycles.
        const first = threadId === threads[0] ? apis[0] : undefined;
        const runId = await createRunAnywhere(tally, apis, threadId, prompt, first);
        if (first !== undefined) lastBuiltin = runId;
        if (!runIds.includes(runId)) runIds.push(runId);
      },
      // A thread's runs take turns: a run created while the last one cut off still holds the thread waits
      // for its lease to end and is then claimed by whichever server polls first, most often a live one,
      // and that cycle's kill cuts nothing. Each cycle waits until the thread is free.
      threadFree: async () => {
        if (lastBuiltin !== undefined)
          await untilSettled(tally, apis[apis.length - 1] as string, lastBuiltin);
      },
      rowsHeard: () => clients[0]?.rows.length ?? 0,
      runCount: () => runIds.length,
      async restartVictims() {
        const owner = lastBuiltin === undefined ? undefined : await runOwnerPid(options.db, lastBuiltin);
        const victims = new Set([0, ...servers.flatMap((s, i) => (s.child.pid === owner ? [i] : []))]);
        await Promise.all([...victims].map((i) => servers[i]?.kill()));
        // Started side by side: each start is ~2 s of loading on a quiet machine, far more on a loaded one.
        await Promise.all(
          [...victims].map(async (i) => {
            servers[i] = await start(ports[i] as number);
          }),
        );
      },
    });
    // Everything settles: no run left queued or running, every run canonicalized.
    const settled = await settleRuns(tally, apis[0] as string, runIds, kills);
    const subscribers = threads.flatMap((id, i) => [
      { id, rows: standard[i]?.rows ?? [] },
      { id, rows: clients[i]?.rows ?? [] },
    ]);
    const streams = await compareSubscribers(apis[options.servers - 1] as string, subscribers);
    return {
      cycles: options.cycles,
      runs: runIds.length,
      ...streams,
      subscribers: subscribers.length,
      ...settled,
      serverErrorsBut503: tally.serverErrorsBut503(),
    };
  } finally {
    for (const close of closers.reverse()) await close();
    for (const s of servers) await s.kill();
    await fixture.close();
  }
}

/** The p-th percentile (0..100) of a list of numbers; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}
