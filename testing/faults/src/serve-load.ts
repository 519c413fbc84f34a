import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeModelServer, slowStream, startFakeModelServer } from '@agentlane/fake-model-server';
import { builtinServeConfig, type ServeProcess, startServeProcess } from '@agentlane/test-engines';
import { HttpTally } from './http-tally';
import { compareStreams, readThread, SseFollower } from './sse-follower';

type Serve = ServeProcess & { output(): string };

export interface FaultCluster {
  servers: Serve[];
  tally: HttpTally;
  /** Run ids the load created (each created through an Idempotency-Key, retried on 503). */
  runIds: Set<string>;
  startLoad(): void;
  stopLoad(): Promise<void>;
  /** Processes that exited by themselves (not killed by the test). */
  exited(): Serve[];
  /** Waits until every run is settled and canonicalized; returns the ones that are not, with their state. */
  waitSettled(timeoutMs: number): Promise<string[]>;
  /**
   * Each follower's run signals against the runs' settled state, summed over the runs of its thread:
   * `statusStale` runs whose latest run.status heard is not their final status, `uncanonicalized` runs whose
   * run.canonicalized was never heard (a client would show their rows provisional), `followerReconnects`
   * how often a follower's stream was opened again (a resumed stream hears completions, not statuses).
   */
  checkRunSignals(): Promise<{
    runs: number;
    statusStale: number;
    uncanonicalized: number;
    followerReconnects: number;
  }>;
  /** Each follower against a fresh full read of its thread, summed. */
  checkStreams(): Promise<{ lost: number; duplicated: number; reordered: number; rows: number }>;
  close(): Promise<void>;
}

export interface FaultClusterOptions {
  db: string;
  servers: number;
  threads: number;
  /** Pause between two run creations of the load (ms). */
  createEveryMs?: number;
}

const settled = (run: { status?: string; canonicalizedAt?: string | null } | undefined) =>
  (run?.status === 'completed' || run?.status === 'failed') && !!run.canonicalizedAt;

/**
 * `servers` real `agentlane serve` processes on one database (the built-in engine on the fake model server,
 * streaming slowly so runs are in flight when the fault hits), `threads` sessions each followed by a
 * resuming SSE client on one of them, and a load that creates runs and lists sessions through all of them.
 */
export async function startFaultCluster(options: FaultClusterOptions): Promise<FaultCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-faults-'));
  const fake: FakeModelServer = await startFakeModelServer({
    scenario: slowStream({ chunks: 8, delayMs: 40 }),
  });
  const configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify(builtinServeConfig({ fakeUrl: fake.url, workDir: dir, apiKey: 'k' })),
  );
  const servers: Serve[] = [];
  const killedByTest = new Set<Serve>();
  for (let i = 0; i < options.servers; i++) {
    servers.push(await startServeProcess(['--port', '0', '--db', options.db, '--config', configPath]));
  }
  const tally = new HttpTally();
  const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)] as T;
  const threads: { id: string; follower: SseFollower; server: Serve }[] = [];
  for (let i = 0; i < options.threads; i++) {
    const server = servers[i % servers.length] as Serve;
    const created = await tally.post(`${server.api}/sessions`, { engine: 'builtin', title: `fault ${i}` });
    const id = (created.json as { session: { id: string } }).session.id;
    threads.push({
      id,
      server,
      follower: new SseFollower(() => `${server.api}/threads/${id}/events?after=0`),
    });
  }
  const runIds = new Set<string>();
  const threadOf = new Map<string, string>();
  let loading = false;
  const inflight = new Set<Promise<void>>();

  // A client that retries a 503 (or no answer) with the same Idempotency-Key, as the API documents.
  const createRun = async (): Promise<void> => {
    const thread = pick(threads);
    const key = randomUUID();
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const server = pick(servers);
      const res = await tally.post(
        `${server.api}/threads/${thread.id}/runs`,
        { prompt: 'stream slowly' },
        {
          'idempotency-key': key,
        },
      );
      if (res.status === 200 || res.status === 201) {
        const { runId } = (res.json as { run: { runId: string } }).run;
        runIds.add(runId);
        threadOf.set(runId, thread.id);
        return;
      }
      if (res.status !== 503 && res.status !== 0) return;
      await new Promise((r) => setTimeout(r, 300));
    }
  };

  const loop = async (): Promise<void> => {
    while (loading) {
      const p = createRun().finally(() => inflight.delete(p));
      inflight.add(p);
      const list = tally.request(`${pick(servers).api}/sessions?limit=5`).then(() => undefined);
      inflight.add(list);
      void list.finally(() => inflight.delete(list));
      await new Promise((r) => setTimeout(r, options.createEveryMs ?? 150));
    }
  };
  let looping: Promise<void> = Promise.resolve();

  const runView = async (runId: string) => {
    const res = await tally.request(`${pick(servers).api}/runs/${runId}`);
    return res.status === 200
      ? (res.json as { run: { status: string; canonicalizedAt: string | null } }).run
      : undefined;
  };

  return {
    servers,
    tally,
    runIds,
    startLoad() {
      loading = true;
      looping = loop();
    },
    async stopLoad() {
      loading = false;
      await looping;
      await Promise.all([...inflight]);
    },
    exited: () =>
      servers.filter(
        (s) => !killedByTest.has(s) && (s.child.exitCode !== null || s.child.signalCode !== null),
      ),
    async waitSettled(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let pending = [...runIds];
      while (pending.length > 0 && Date.now() < deadline) {
        const views = await Promise.all(pending.map(runView));
        const left = pending.filter((_, i) => !settled(views[i]));
        if (left.length === 0 || Date.now() >= deadline) {
          return pending
            .map((id, i) => (settled(views[i]) ? null : `${id} ${JSON.stringify(views[i] ?? null)}`))
            .filter((x): x is string => x !== null);
        }
        pending = left;
        await new Promise((r) => setTimeout(r, 250));
      }
      return pending;
    },
    async checkRunSignals() {
      const total = { runs: 0, statusStale: 0, uncanonicalized: 0, followerReconnects: 0 };
      for (const t of threads) total.followerReconnects += t.follower.reconnects;
      const mine = [...runIds].filter((id) => threadOf.has(id));
      const views = await Promise.all(mine.map(runView));
      const deadline = Date.now() + 10_000;
      for (const [i, runId] of mine.entries()) {
        const view = views[i];
        const follower = threads.find((t) => t.id === threadOf.get(runId))?.follower;
        if (!view || !follower || !settled(view)) continue;
        total.runs++;
        // The signals follow the settle by a few milliseconds: wait for them (bounded), never for long.
        const heard = () => follower.runs.get(runId);
        const done = () => heard()?.status === view.status && heard()?.canonicalized === view.status;
        while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        if (heard()?.status !== view.status) total.statusStale++;
        if (heard()?.canonicalized !== view.status) total.uncanonicalized++;
      }
      return total;
    },
    async checkStreams() {
      const total = { lost: 0, duplicated: 0, reordered: 0, rows: 0 };
      for (const t of threads) {
        const fresh = await readThread(`${t.server.api}/threads/${t.id}/events?after=0`);
        const deadline = Date.now() + 10_000;
        const head = fresh.reduce((m, r) => Math.max(m, r.deliverySeq), 0);
        while (t.follower.head() < head && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        const c = compareStreams(t.follower.rows, fresh);
        total.lost += c.lost;
        total.duplicated += c.duplicated;
        total.reordered += c.reordered;
        total.rows += fresh.length;
      }
      return total;
    },
    async close() {
      loading = false;
      for (const t of threads) await t.follower.close();
      for (const s of servers) {
        killedByTest.add(s);
        await s.kill();
      }
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
