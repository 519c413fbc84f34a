import type { LoadClient } from './load-driver';
import type { Target } from './targets';

const now = () => performance.timeOrigin + performance.now();
const BATCH = 10;

export interface FanOutResult {
  /** Delivered message frames per second, over all subscribers. */
  rate: number;
  p50: number;
  p99: number;
  seconds: number;
}

/**
 * Opens n subscribers in the load client, publishes m events in batches of 10 (each stamped with its send
 * time), and waits until every subscriber has all m. Rate = n·m / (last receipt − first send).
 */
export async function measureFanOut(
  target: Target,
  client: LoadClient,
  n: number,
  m: number,
): Promise<FanOutResult> {
  client.send({ type: 'open', url: target.url, n, goal: { kind: 'count', m } });
  await client.next('opened');
  await new Promise((r) => setTimeout(r, 300));
  const t0 = now();
  for (let sent = 0; sent < m; sent += BATCH) {
    const stamp = String(now());
    await target.publish(Array.from({ length: Math.min(BATCH, m - sent) }, () => stamp));
    // Both servers get the same chance to flush sockets between batches.
    await new Promise((r) => setImmediate(r));
  }
  const done = await client.next('done');
  const seconds = (done.lastAt - t0) / 1000;
  await client.close();
  return { rate: done.received / seconds, p50: done.p50, p99: done.p99, seconds };
}
