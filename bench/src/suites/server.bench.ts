/**
 * Server benchmarks. Fan-out: one thread, 1/100/1000/5000 SSE subscribers held by a separate client process
 * on loopback; agentlane (commit then publish through the lane's hub, Fastify, bounded SSE connections)
 * next to a bare node:http broadcaster of the same frames without persistence, in the same run.
 * Reconnect storm: 1000 subscribers reconnect at once with different Last-Event-IDs.
 * `BENCH_SERVER_SUBSCRIBERS=1,100` narrows the fan-out sizes.
 */
import { measureFanOut } from '../server/fan-out';
import { LoadClient } from '../server/load-driver';
import { agentlaneTarget, bareTarget } from '../server/targets';
import type { BenchResult } from '../types';

const SIZES = (process.env.BENCH_SERVER_SUBSCRIBERS ?? '1,100,1000,5000')
  .split(',')
  .filter((s) => s.trim() !== '')
  .map(Number);
/** Events per run: enough deliveries to measure (~50k), never fewer than 20 events. */
const eventsFor = (n: number) => Math.max(20, Math.min(1000, Math.round(50_000 / n)));
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

async function reconnectStorm(client: LoadClient): Promise<BenchResult[]> {
  const target = await agentlaneTarget();
  try {
    const HISTORY = 1000;
    for (let i = 0; i < HISTORY; i += 200) {
      await target.publish(Array.from({ length: 200 }, () => '0'));
    }
    const head = await target.store.headDeliverySeq(target.threadId);
    const N = 1000;
    // Deterministic spread of resume points over the history.
    const lastEventIds = Array.from({ length: N }, (_, i) => (i * 7919) % head);
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    const t0 = performance.now();
    client.send({ type: 'open', url: target.url, n: N, lastEventIds, goal: { kind: 'seq', head } });
    await client.next('opened');
    const done = await client.next('done');
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    await client.close();
    const rows = lastEventIds.reduce((sum, id) => sum + (head - id), 0);
    return [
      {
        name: 'server reconnect storm: 1000 subscribers, time until all caught up',
        unit: 's',
        value: round(seconds, 2),
        extra: `${rows} rows replayed from ${head}-row history (${round(rows / seconds / 1000)}k rows/s), connections opened in waves of 250, ${done.errors} errors`,
      },
      {
        name: 'server reconnect storm: peak server memory (RSS)',
        unit: 'MB',
        value: round(peak / 1e6),
        extra: `+${round((peak - rssBefore) / 1e6)} MB over the ${round(rssBefore / 1e6)} MB before the storm`,
      },
    ];
  } finally {
    await target.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  const client = new LoadClient();
  const results: BenchResult[] = [];
  try {
    for (const n of SIZES) {
      const m = eventsFor(n);
      const bareTargetInstance = await bareTarget();
      const bare = await measureFanOut(bareTargetInstance, client, n, m).finally(() =>
        bareTargetInstance.close(),
      );
      const lane = await agentlaneTarget();
      const ours = await measureFanOut(lane, client, n, m).finally(() => lane.close());
      results.push({
        name: `server fan-out, ${n} subscribers: delivered events/s`,
        unit: 'events/s',
        value: Math.round(ours.rate),
        ratio: round(ours.rate / bare.rate, 3),
        extra: `bare node:http ${Math.round(bare.rate)}/s; ${m} events, ${n * m} deliveries; agentlane ${round(ours.seconds, 2)} s, bare ${round(bare.seconds, 2)} s`,
      });
      results.push({
        name: `server fan-out, ${n} subscribers: p99 latency`,
        unit: 'ms',
        value: round(ours.p99, 2),
        ratio: round(bare.p99 / Math.max(ours.p99, 0.001), 3),
        extra: `p50 ${round(ours.p50, 2)} ms; bare node:http p99 ${round(bare.p99, 2)} ms, p50 ${round(bare.p50, 2)} ms`,
      });
      console.log(
        `  ${n} subscribers: agentlane ${Math.round(ours.rate)}/s p99 ${round(ours.p99)} ms; bare ${Math.round(bare.rate)}/s p99 ${round(bare.p99)} ms`,
      );
    }
    results.push(...(await reconnectStorm(client)));
  } finally {
    client.kill();
  }
  return results;
}
