/**
 * The Python runtime (python/agentlane) next to the TypeScript one, in the same run:
 * - thread replay: the Python client (follow_thread: SSE parsing, every frame validated against the JSON
 *   Schema bundle, latest revision per eventId folded into a Timeline) and the TypeScript client
 *   (subscribeThread + reduceTimelineBatch per 1,000 events) read the same 100,000-event thread from the same local SSE server;
 * - corpus replay: the corpus turns the Python runtime replays (all four wire APIs), run by each runtime against the
 *   recorded exchanges (best of 3).
 * Ratios > 1 favour Python. Skipped with a printed reason when python3 or its jsonschema is missing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initialTimelineState, reduceTimelineBatch, subscribeThread } from '@agentlane/client';
import { StreamFrames } from '@agentlane/client/testing';
import type { StreamEvent } from '@agentlane/contract';
import { type CorpusFixture, runCorpusTurn, startWireReplayer } from '@agentlane/corpus-recorder';
import type { BenchResult } from '../types';

const here = dirname(fileURLToPath(import.meta.url));
const pythonRoot = join(here, '..', '..', '..', 'python');
const corpusDir = join(here, '..', '..', '..', 'testing', 'corpus-recorder', 'fixtures', 'corpus');
// PYTHON_BENCH_EVENTS: a smaller thread for a quick look (the figure is reported at 100,000).
const EVENTS = Number(process.env.PYTHON_BENCH_EVENTS ?? 100_000);
const THREAD = 'th-bench';

/** 100,000 rows: turns of a prompt, a streamed answer, a tool call with revisions, usage. */
function bigThread(): StreamFrames {
  const w = new StreamFrames({ threadId: THREAD, provider: 'bench' });
  let turn = 0;
  while (w.deliverySeq < EVENTS - 30) {
    turn += 1;
    w.turnId = `turn-${turn}`;
    w.emit({
      kind: 'turn.started',
      payload: { prompt: `Question ${turn}: what changed in module ${turn}?` },
    });
    w.emit({ kind: 'message.started', payload: { messageId: `m${turn}`, role: 'assistant' } });
    for (let i = 0; i < 20; i++)
      w.emit({
        kind: 'message.delta',
        payload: { messageId: `m${turn}`, partId: `m${turn}`, delta: `part ${i} of the answer, ` },
      });
    w.emit({
      kind: 'message.completed',
      payload: { messageId: `m${turn}`, role: 'assistant', text: 'done' },
    });
    // A tool call delivered twice: revision 2 of the same eventId (pending, then running).
    const read = (status: 'pending' | 'running') =>
      ({
        kind: 'tool.started',
        payload: {
          toolCallId: `t${turn}`,
          name: 'read',
          kind: 'read',
          input: { path: `m${turn}.ts` },
          status,
        },
      }) as const;
    const tool = w.emit(read('pending'));
    w.emit(read('running'), { eventId: tool.event.eventId, revision: 2 });
    w.emit({
      kind: 'tool.completed',
      payload: { toolCallId: `t${turn}`, status: 'completed', output: 'ok' },
    });
    w.emit({ kind: 'usage.updated', payload: { scope: 'turn', inputTokens: 1000, outputTokens: 200 } });
    w.emit({ kind: 'turn.completed', payload: { stopReason: 'end_turn' } });
  }
  while (w.deliverySeq < EVENTS)
    w.emit({ kind: 'context.marker', payload: { markerKind: 'memory', phase: 'point', label: 'pad' } });
  return w;
}

/** One SSE route serving the whole thread (stream.opened, then every row with `id:`), then staying open. */
async function serveThread(w: StreamFrames): Promise<{ server: Server; url: string }> {
  const opened = { type: 'stream.opened', threadId: THREAD, after: 0, headDeliverySeq: w.deliverySeq };
  const body = Buffer.from(
    `data: ${JSON.stringify(opened)}\n\n` +
      w.frames
        .map((f) => `id: ${'deliverySeq' in f ? f.deliverySeq : ''}\ndata: ${JSON.stringify(f)}\n\n`)
        .join(''),
  );
  const server = createServer((req, res) => {
    if (!req.url?.startsWith(`/api/harness/threads/${THREAD}/events`)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function python(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-m', 'agentlane.benchmark', ...args], { cwd: pythonRoot });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`python exited ${code}: ${err}`)),
    );
  });
}

async function tsThreadReplay(url: string, last: number): Promise<{ seconds: number; rows: number }> {
  const abort = new AbortController();
  let state = initialTimelineState();
  // Folded in batches, as the web timeline folds per animation frame (one event at a time copies state).
  let batch: StreamEvent[] = [];
  const started = performance.now();
  for await (const event of subscribeThread({ baseUrl: `${url}/api/harness` }, THREAD, {
    signal: abort.signal,
  })) {
    batch.push(event);
    const done = 'deliverySeq' in event && 'event' in event && event.deliverySeq >= last;
    if (batch.length >= 1000 || done) {
      state = reduceTimelineBatch(state, batch);
      batch = [];
    }
    if (done) abort.abort();
  }
  if (Object.keys(state).length === 0) throw new Error('nothing folded');
  return { seconds: (performance.now() - started) / 1000, rows: last };
}

async function tsCorpus(names: string[], rounds = 3): Promise<number> {
  const fixtures = readdirSync(corpusDir)
    .filter((f) => names.includes(f.replace(/\.json$/, '')))
    .map((f) => JSON.parse(readFileSync(join(corpusDir, f), 'utf8')) as CorpusFixture);
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const started = performance.now();
    for (const fixture of fixtures) {
      const replayer = await startWireReplayer(fixture.exchanges);
      try {
        await runCorpusTurn(fixture.input, replayer.url);
      } finally {
        await replayer.close();
      }
    }
    best = Math.min(best, performance.now() - started);
  }
  return best / 1000;
}

export async function run(): Promise<BenchResult[]> {
  const probe = spawnSync('python3', ['-c', 'import jsonschema'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    console.log(`python bench: skipped (${probe.error ? 'python3 not found' : probe.stderr.trim()})`);
    return [];
  }
  const w = bigThread();
  const { server, url } = await serveThread(w);
  try {
    const ts = await tsThreadReplay(url, w.deliverySeq);
    const py = (await python(['thread', url, THREAD, String(w.deliverySeq)])) as {
      seconds: number;
      frames: number;
    };
    const corpus = (await python(['corpus', corpusDir])) as {
      seconds: number;
      turns: string[];
      failures: string[];
    };
    if (corpus.failures.length > 0)
      throw new Error(`python corpus replay failed: ${corpus.failures.join(', ')}`);
    const tsCorpusSeconds = await tsCorpus(corpus.turns);
    const rate = (s: number) => Math.round(EVENTS / s);
    return [
      {
        name: `python: client thread replay, ${EVENTS} events validated and folded`,
        unit: 'events/s',
        value: rate(py.seconds),
        ratio: Number((ts.seconds / py.seconds).toFixed(3)),
        extra: `Python ${py.seconds.toFixed(2)} s (${py.frames} frames, each checked against the schema bundle) vs TypeScript subscribeThread + reduceTimelineBatch ${ts.seconds.toFixed(2)} s (${rate(ts.seconds)} events/s)`,
      },
      {
        name: `python: corpus replay, ${corpus.turns.length} turns`,
        unit: 'ms',
        value: Math.round(corpus.seconds * 1000),
        ratio: Number((tsCorpusSeconds / corpus.seconds).toFixed(3)),
        extra: `Python ${Math.round(corpus.seconds * 1000)} ms vs TypeScript runtime ${Math.round(tsCorpusSeconds * 1000)} ms on the same turns (best of 3)`,
      },
    ];
  } finally {
    server.close();
    server.closeAllConnections();
  }
}
