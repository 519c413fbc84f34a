import { startServeProcess } from '@agentlane/test-engines';
import { startBuiltinFixture } from './builtin-fixture';
import { checkRunSignals, checkStreams, type RunReader, waitSettled } from './cluster-checks';
import { type FollowedThread, pick, RunLoad, type Serve } from './cluster-load';
import { HttpTally } from './http-tally';
import { SseFollower } from './sse-follower';

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

/** `count` sessions on the built-in engine, spread over the servers, each followed where it was created. */
async function openFollowedThreads(tally: HttpTally, servers: readonly Serve[], count: number) {
  const threads: FollowedThread[] = [];
  for (let i = 0; i < count; i++) {
    const server = servers[i % servers.length] as Serve;
    const created = await tally.post(`${server.api}/sessions`, { engine: 'builtin', title: `fault ${i}` });
    const id = (created.json as { session: { id: string } }).session.id;
    threads.push({
      id,
      server,
      follower: new SseFollower(() => `${server.api}/threads/${id}/events?after=0`),
    });
  }
  return threads;
}

/**
 * `servers` real `agentlane serve` processes on one database (the built-in engine on the fake model server,
 * streaming slowly so runs are in flight when the fault hits), `threads` sessions each followed by a
 * resuming SSE client on one of them, and a load that creates runs and lists sessions through all of them.
 */
export async function startFaultCluster(options: FaultClusterOptions): Promise<FaultCluster> {
  const fixture = await startBuiltinFixture('agentlane-faults-', { chunks: 8, delayMs: 40 });
  const servers: Serve[] = [];
  const killedByTest = new Set<Serve>();
  for (let i = 0; i < options.servers; i++) {
    servers.push(
      await startServeProcess(['--port', '0', '--db', options.db, '--config', fixture.configPath]),
    );
  }
  const tally = new HttpTally();
  const threads = await openFollowedThreads(tally, servers, options.threads);
  const load = new RunLoad(tally, servers, threads, options.createEveryMs ?? 150);
  const readRun: RunReader = async (runId) => {
    const res = await tally.request(`${pick(servers).api}/runs/${runId}`);
    return res.status === 200
      ? (res.json as { run: { status: string; canonicalizedAt: string | null } }).run
      : undefined;
  };

  return {
    servers,
    tally,
    runIds: load.runIds,
    startLoad: () => load.start(),
    stopLoad: () => load.stop(),
    exited: () =>
      servers.filter(
        (s) => !killedByTest.has(s) && (s.child.exitCode !== null || s.child.signalCode !== null),
      ),
    waitSettled: (timeoutMs) => waitSettled(readRun, load.runIds, timeoutMs),
    checkRunSignals: () => checkRunSignals(readRun, threads, load.threadOf),
    checkStreams: () => checkStreams(threads),
    async close() {
      load.halt();
      for (const t of threads) await t.follower.close();
      for (const s of servers) {
        killedByTest.add(s);
        await s.kill();
      }
      await fixture.close();
    },
  };
}
