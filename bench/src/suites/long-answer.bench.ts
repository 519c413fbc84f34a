/**
 * Long answers through the HTTP API (issue 20): the built-in engine streaming a 2 MB answer in 20,000 Chat
 * Completions chunks through real `agentlane serve` on SQLite, next to the AI SDK's own `streamText` over
 * the same fake stream in the same run (a process of its own, so only its stream is counted). Figures: server
 * CPU from run.create until the run is canonicalized, /health while it streams (probed every 20 ms), the
 * database's growth against the text, and server CPU per chunk from 1,000 to 100,000 chunks (the curve).
 * `BENCH_LONG_ANSWER_CURVE=1000,10000` narrows the curve.
 */
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { measureStreamText, type ServeRunFigures, startLongAnswerServer } from '../long-answer/serve-run';
import { CHUNK_CHARS, longAnswer } from '../long-answer/workload';
import type { BenchResult } from '../types';

const CHUNKS = 20_000;
const CURVE = (process.env.BENCH_LONG_ANSWER_CURVE ?? '1000,10000,100000')
  .split(',')
  .filter((s) => s.trim() !== '')
  .map(Number);
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const mb = (bytes: number) => `${round(bytes / 1e6, 1)} MB`;

export async function run(): Promise<BenchResult[]> {
  const fake = await startFakeModelServer();
  const server = await startLongAnswerServer(fake).catch(async (err) => {
    await fake.close();
    throw err;
  });
  try {
    const text = CHUNKS * CHUNK_CHARS;
    longAnswer(fake, CHUNKS);
    const sdk = await measureStreamText(fake);
    const main = await server.run(CHUNKS);
    const shape = `${mb(text)} in ${CHUNKS} chunks of ${CHUNK_CHARS} characters`;
    const results: BenchResult[] = [
      {
        name: 'long answer: AI SDK streamText CPU (baseline)',
        unit: 'ms',
        value: round(sdk.cpuMs, 0),
        extra: `${shape}, ${sdk.parts} parts, its own process`,
      },
      {
        name: 'long answer: agentlane serve CPU',
        unit: 'ms',
        value: round(main.cpuMs, 0),
        // Baseline ÷ ours: the SDK's stream is part of our work, so 1 is the floor; target ≥ 0.5 (≤ 2×).
        ratio: round(sdk.cpuMs / main.cpuMs, 3),
        extra: `${shape}, run.create → canonicalized, ${round(main.wallMs / 1000, 1)} s wall; ${round(main.cpuMs / sdk.cpuMs, 2)}× streamText (target ≤ 2×)`,
      },
      {
        name: 'long answer: /health p99 during the run',
        unit: 'ms',
        value: round(main.healthP99, 1),
        // Target ÷ ours: above 1 meets the 50 ms target.
        ratio: round(50 / main.healthP99, 3),
        extra: `p50 ${round(main.healthP50, 1)} ms, max ${round(main.healthMax, 1)} ms, ${main.healthSamples} probes, slowest ${main.healthSlowest} of the run (target p99 < 50 ms; ratio = 50 ms ÷ p99)`,
      },
      {
        name: 'long answer: database growth ÷ text',
        unit: '×',
        value: round(main.dbBytes / text, 2),
        // The text ÷ ours ×4: above 1 meets "at most 4× the text".
        ratio: round((4 * text) / main.dbBytes, 3),
        extra: `${mb(main.dbBytes)} of pages for ${mb(text)} of text (target ≤ 4×; ratio = 4 × text ÷ growth); files (main + WAL) ${mb(main.dbFileBytes)}, written to disk ${main.writeBytes === null ? 'n/a' : mb(main.writeBytes)}; SSE ${mb(main.sseBytes)}; by table ${main.dbTables
          .slice(0, 8)
          .map(([name, bytes]) => `${name} ${mb(bytes)}`)
          .join(', ')}`,
      },
    ];
    const curve: { chunks: number; figures: ServeRunFigures }[] = [];
    for (const n of CURVE) curve.push({ chunks: n, figures: n === CHUNKS ? main : await server.run(n) });
    const perChunk = curve.map((c) => c.figures.cpuMs / c.chunks);
    for (const [i, c] of curve.entries())
      results.push({
        name: `long answer: server CPU per chunk at ${c.chunks} chunks`,
        unit: 'ms',
        value: round(perChunk[i] ?? 0, 4),
        extra: `${mb(c.chunks * CHUNK_CHARS)}; /health p99 ${round(c.figures.healthP99, 1)} ms; database ${round(c.figures.dbBytes / (c.chunks * CHUNK_CHARS), 2)}× the text`,
      });
    if (curve.length >= 2) {
      const first = perChunk[0] ?? 0;
      const last = perChunk[perChunk.length - 1] ?? 0;
      results.push({
        name: `long answer: per-chunk cost, ${curve.at(-1)?.chunks} vs ${curve[0]?.chunks} chunks`,
        unit: '×',
        value: round(last / first, 3),
        // The small run's cost per chunk ÷ the long run's: 1 is flat, above 1 the long run is cheaper per chunk.
        ratio: round(first / last, 3),
        extra: `curve ${curve.map((c, i) => `${c.chunks}: ${round(perChunk[i] ?? 0, 4)} ms`).join(', ')} (flat = 1)`,
      });
    }
    return results;
  } finally {
    await server.close();
    await fake.close();
  }
}
