import type { CanonicalStreamEvent, StreamEvent } from '@agentlane/contract';
import { RunTranslation } from '@agentlane/lane';
import { Materializer, PublishHub, RunPipeline } from '@agentlane/lane/internal';
import type { Backend, PlainRow } from './backends';
import { benchEvents, benchFrame, benchTranslator, IDLE_GAP_MS, percentile, sortedCopy } from './fixtures';

/** Offered load of the throughput phase, frames/s. */
const OFFERED_RATE = 200_000;
const tick = () => new Promise<void>((r) => setImmediate(r));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function newRun(b: Backend, threadId: string): Promise<string> {
  await b.store.createThread({ threadId, engine: 'bench', title: null, workDir: null, metadata: {} });
  const { run } = await b.store.createRun({ threadId, prompt: 'bench' });
  await b.store.claimRun(run.runId, 'bench');
  return run.runId;
}

function pipelineFor(b: Backend, hub: PublishHub, threadId: string, runId: string): RunPipeline {
  return new RunPipeline({
    store: b.store,
    hub,
    threadId,
    runId,
    translation: new RunTranslation(benchTranslator(), { threadId, runId, turnId: runId, provider: 'bench' }),
    materializer: new Materializer(b.store),
  });
}

function isRow(e: StreamEvent): e is CanonicalStreamEvent {
  return 'deliverySeq' in e && 'event' in e;
}

export interface IngestResult {
  eventsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  meanBatch: number;
}

/**
 * Native frames in → source lane → translated → persisted → delivered to `subscribers` live subscribers.
 * Throughput: frames are offered at OFFERED_RATE (more than either backend absorbs), open loop, so the
 * group commit sees what a real engine's pipe would hold; events/s = frames / (first emit → last frame at the
 * last subscriber).
 * Latency: then `paced` frames at a steady rate (10 frames every 10 ms, 1000 frames/s), emit → subscriber
 * callback for every (frame, subscriber) pair: a burst measures queueing, not the lane.
 */
export async function measureIngest(
  b: Backend,
  frames: number,
  subscribers: number,
  tag: string,
  paced = 2000,
): Promise<IngestResult> {
  const threadId = `ingest-${tag}`;
  const runId = await newRun(b, threadId);
  const hub = new PublishHub(b.store, { headPollMs: 0 });
  const total = frames + paced;
  const emitAt = new Float64Array(total);
  const latencies = new Float64Array(paced * subscribers);
  let samples = 0;
  const received = new Int32Array(subscribers);
  let lastDelivery = 0;
  for (let s = 0; s < subscribers; s++) {
    // The clock is read only where a figure needs it: with 100 subscribers, reading it for each of the 2M
    // deliveries of the throughput phase was the benchmark's own cost, charged to the lane.
    await hub.subscribe(threadId, 0, (e) => {
      if (!isRow(e)) return;
      const i = e.event.seq - 1;
      received[s] = (received[s] as number) + 1;
      if (i === frames - 1) lastDelivery = Math.max(lastDelivery, performance.now());
      if (i >= frames) latencies[samples++] = performance.now() - (emitAt[i] as number);
    });
  }
  const allReached = async (n: number) => {
    while (received.some((r) => r < n)) await sleep(1);
  };
  const pipeline = pipelineFor(b, hub, threadId, runId);
  const started = performance.now();
  // Open loop: frames arrive at OFFERED_RATE whether or not the lane keeps up (an engine's pipe fills while a
  // synchronous SQLite commit blocks the event loop); each tick takes every frame that is due.
  let emitted = 0;
  while (emitted < frames) {
    const due = Math.min(
      frames,
      Math.max(emitted + 100, Math.floor(((performance.now() - started) / 1000) * OFFERED_RATE)),
    );
    const at = performance.now();
    for (; emitted < due; emitted++) {
      emitAt[emitted] = at;
      pipeline.emit(benchFrame(emitted));
    }
    await tick();
  }
  await pipeline.drain();
  await allReached(frames);
  const eventsPerSec = frames / ((lastDelivery - started) / 1000);
  const meanBatch = pipeline.framesStored / pipeline.flushes;
  for (let i = frames; i < total; i++) {
    emitAt[i] = performance.now();
    pipeline.emit(benchFrame(i));
    if (i % 10 === 9) await sleep(10);
  }
  await pipeline.drain();
  await allReached(total);
  hub.close();
  const sorted = sortedCopy(latencies.subarray(0, samples));
  return { eventsPerSec, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), meanBatch };
}

/** The lane's rows for `rows` frames of a thread, as the baselines insert them. */
function plainRows(threadId: string, runId: string, rows: number): PlainRow[] {
  return benchEvents(threadId, runId, 0, rows).map((w, i) => [
    threadId,
    i + 1,
    w.event.eventId,
    1,
    w.event.runId,
    w.event.seq,
    w.event.kind,
    1,
    JSON.stringify(w.event),
    '',
    1,
    null,
    w.event.ts,
  ]);
}

/** The baseline: the same rows, plain batched INSERTs (batch 1000), same driver and durability. */
export async function measurePlainInsert(b: Backend, rows: number, tag: string): Promise<number> {
  const all = plainRows(`plain-${tag}`, `run-${tag}`, rows);
  const started = performance.now();
  for (let i = 0; i < all.length; i += 1000) await b.plainInsert(all.slice(i, i + 1000));
  return rows / ((performance.now() - started) / 1000);
}

/**
 * Diagnostic: the baseline's plain batched INSERTs into the store's own tables, the events alone or with
 * their native frames: the schema's floor (its indexes, the append-only trigger, the frame rows) with no
 * lane code. The lane cannot beat it, so its ratio to the baseline bounds the lane's.
 */
export async function measurePlainIntoSchema(
  b: Backend,
  rows: number,
  withFrames: boolean,
  tag: string,
): Promise<number> {
  if (!b.plainInsertIntoSchema) throw new Error(`${b.name}: no plain insert into the schema`);
  const threadId = `schema-${tag}`;
  const runId = await newRun(b, threadId);
  const all = plainRows(threadId, runId, rows);
  const receivedAt = new Date().toISOString();
  const frames: [string, number, string, string][] = all.map((_, i) => [
    runId,
    i + 1,
    receivedAt,
    JSON.stringify(benchFrame(i)),
  ]);
  const started = performance.now();
  for (let i = 0; i < all.length; i += 1000)
    await b.plainInsertIntoSchema(all.slice(i, i + 1000), withFrames ? frames.slice(i, i + 1000) : null);
  return rows / ((performance.now() - started) / 1000);
}

/** One frame at a time on an otherwise idle lane: emit → subscriber, `count` samples. */
export async function measureIdleLatency(
  b: Backend,
  count: number,
  tag: string,
): Promise<{ p50Ms: number; p99Ms: number }> {
  const threadId = `idle-${tag}`;
  const runId = await newRun(b, threadId);
  const hub = new PublishHub(b.store, { headPollMs: 0 });
  let resolveNext: ((t: number) => void) | null = null;
  await hub.subscribe(threadId, 0, (e) => {
    if (isRow(e)) resolveNext?.(performance.now());
  });
  const pipeline = pipelineFor(b, hub, threadId, runId);
  const lat: number[] = [];
  for (let i = 0; i < count + 10; i++) {
    const arrived = new Promise<number>((r) => {
      resolveNext = r;
    });
    const t0 = performance.now();
    pipeline.emit(benchFrame(i));
    const t1 = await arrived;
    if (i >= 10) lat.push(t1 - t0); // the first few warm up statement caches
    await sleep(IDLE_GAP_MS);
  }
  await pipeline.drain();
  hub.close();
  const sorted = sortedCopy(lat);
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
}

/** Fills a thread with `count` committed events (bulk load); returns the thread id. */
export async function prepareReplay(b: Backend, count: number): Promise<string> {
  const threadId = 'replay';
  await b.store.createThread({ threadId, engine: 'bench', title: null, workDir: null, metadata: {} });
  await b.bulkLoad(threadId, 'replay-run', count);
  const head = await b.store.headDeliverySeq(threadId);
  if (head !== count) throw new Error(`bulk load left head at ${head}, expected ${count}`);
  return threadId;
}

/** Catch-up of the whole thread from after=0 through the hub (what a reconnecting client gets). */
export async function measureReplay(b: Backend, threadId: string, count: number): Promise<number> {
  const hub = new PublishHub(b.store, { headPollMs: 0 });
  let received = 0;
  let end = 0;
  const started = performance.now();
  await hub.subscribe(threadId, 0, (e) => {
    if (isRow(e) && ++received === count) end = performance.now();
  });
  while (received < count) await sleep(2);
  hub.close();
  return count / ((end - started) / 1000);
}

export async function measurePlainSelect(b: Backend, threadId: string, count: number): Promise<number> {
  const started = performance.now();
  const n = await b.plainSelect(threadId);
  if (n !== count) throw new Error(`plain select saw ${n} rows, expected ${count}`);
  return count / ((performance.now() - started) / 1000);
}

/**
 * Diagnostic: the store alone doing what the lane asks of it per flush (frames + their rows in one group
 * commit, batches of 2000), without translation or delivery: shows how much of the lane's time is the store.
 */
export async function measureStoreOnly(b: Backend, rows: number, tag: string): Promise<number> {
  const threadId = `store-only-${tag}`;
  const runId = await newRun(b, threadId);
  const started = performance.now();
  for (let i = 0; i < rows; i += 2000) {
    const n = Math.min(2000, rows - i);
    const frames = Array.from({ length: n }, (_, k) => ({
      receivedAt: new Date().toISOString(),
      frame: benchFrame(i + k),
    }));
    await Promise.all([
      b.store.appendFrames(runId, frames),
      b.store.appendEvents(threadId, benchEvents(threadId, runId, i, n), true),
    ]);
  }
  return rows / ((performance.now() - started) / 1000);
}
