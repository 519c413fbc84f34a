import {
  type FaultCluster,
  startFaultCluster,
  startPrivatePostgres,
  terminateAgentlaneBackends,
} from '@agentlane/testing-faults';
import type { BenchResult } from '../types';

/**
 * Database faults with real `agentlane serve` processes (two, on a private PostgreSQL the bench starts and
 * stops itself): under a load of run creations and session lists, every agentlane backend is terminated
 * three times, then PostgreSQL is restarted (2.5 s down). Figures: 5xx answers by code, processes that
 * exited, runs left unsettled, rows lost / duplicated / reordered, and the time from PostgreSQL accepting
 * connections again to a run created through every server.
 */
export async function run(): Promise<BenchResult[]> {
  const started = await startPrivatePostgres();
  if (!('url' in started)) {
    console.log(`faults-db bench: skipped, ${started.unavailable}`);
    return [];
  }
  let cluster: FaultCluster | undefined;
  try {
    cluster = await startFaultCluster({ db: started.url, servers: 2, threads: 4, createEveryMs: 300 });
    const c = cluster;
    // A run created through every server: how long it takes with the database up, and after the restart.
    const createThroughAll = (from: number) =>
      Promise.all(
        c.servers.map(async (server) => {
          const threadId = (
            (await c.tally.request(`${server.api}/sessions?limit=1`)).json as { sessions: { id: string }[] }
          ).sessions[0]?.id;
          await c.tally.post(`${server.api}/threads/${threadId}/runs`, { prompt: 'one more' });
          return Date.now() - from;
        }),
      );
    cluster.startLoad();
    await sleep(1500);
    const baseline = Math.max(...(await createThroughAll(Date.now())));
    for (let i = 0; i < 3; i++) {
      await terminateAgentlaneBackends(started.url);
      await sleep(700);
    }
    const { downMs } = await started.restart(2500);
    const recovered = await createThroughAll(Date.now());
    await sleep(1500);
    await cluster.stopLoad();
    const stuck = await cluster.waitSettled(90_000);
    const streams = await cluster.checkStreams();
    const byCode = [...cluster.tally.byStatus].filter(([s]) => s >= 500 || s === 0);
    const extra = `2 processes, ${cluster.runIds.size} runs, ${streams.rows} rows; restart ${downMs} ms down`;
    return [
      {
        name: 'faults db: 503 answers during terminations and a restart',
        unit: 'count',
        value: cluster.tally.count(503),
        extra,
      },
      {
        name: 'faults db: 5xx answers other than 503',
        unit: 'count',
        value: Object.values(cluster.tally.serverErrorsBut503()).reduce((a, b) => a + b, 0),
        extra: `by code: ${JSON.stringify(Object.fromEntries(byCode))}`,
      },
      { name: 'faults db: requests without an answer', unit: 'count', value: cluster.tally.count(0), extra },
      { name: 'faults db: processes exited', unit: 'count', value: cluster.exited().length, extra },
      { name: 'faults db: runs stuck', unit: 'count', value: stuck.length, extra },
      {
        name: 'faults db: rows lost + duplicated + reordered',
        unit: 'count',
        value: streams.lost + streams.duplicated + streams.reordered,
        extra: JSON.stringify(streams),
      },
      {
        name: 'faults db: PostgreSQL up to a run created through every server',
        unit: 'ms',
        value: Math.max(...recovered),
        extra: `${extra}; the same with the database up, under the same load: ${baseline} ms`,
      },
    ];
  } finally {
    await cluster?.close();
    await started.stop();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
