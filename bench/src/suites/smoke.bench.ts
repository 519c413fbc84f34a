import type { BenchResult } from '../types';

/** Proves the runner works without any backend: a trivial JSON round-trip rate. */
export async function run(): Promise<BenchResult[]> {
  const row = { kind: 'message.delta', payload: { text: 'hello world' } };
  const n = 100_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) JSON.parse(JSON.stringify(row));
  const s = (performance.now() - t0) / 1000;
  return [{ name: 'smoke: JSON round-trip', unit: 'ops/s', value: n / s }];
}
