/**
 * The canonical lane against plain database work, on SQLite and PostgreSQL at their default durability.
 * Env: BENCH_INGEST_FRAMES (default 20000), BENCH_REPLAY_EVENTS (default 1000000),
 * BENCH_LANE_BACKENDS (default "sqlite,postgres"), BENCH_LANE_RUNS (default 3: write figures are the median of
 * rounds that each measure the baseline and then the lane).
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { type Backend, postgresAvailable, postgresBackend, sqliteBackend } from '../lane/backends';
import { IDLE_GAP_MS } from '../lane/fixtures';
import { measureFsyncFloor } from '../lane/fsync-floor';
import {
  type IngestResult,
  measureIdleLatency,
  measureIngest,
  measurePlainInsert,
  measurePlainIntoSchema,
  measurePlainSelect,
  measureReplay,
  measureStoreOnly,
  prepareReplay,
} from '../lane/measure';
import type { BenchResult } from '../types';

const INGEST_FRAMES = Number(process.env.BENCH_INGEST_FRAMES ?? 20_000);
const REPLAY_EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 1_000_000);
const BACKENDS = (process.env.BENCH_LANE_BACKENDS ?? 'sqlite,postgres').split(',').map((s) => s.trim());

const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toPrecision(3));

/**
 * Write measurements run in this many rounds, each measurement on a fresh database; a round measures the
 * baseline and then the lane, so both see the same machine (others share it), and the median is reported.
 */
const RUNS = Number(process.env.BENCH_LANE_RUNS ?? 3);

function medianOf<T>(runs: readonly T[], value: (r: T) => number): T {
  const sorted = [...runs].sort((a, b) => value(a) - value(b));
  return sorted[Math.floor((sorted.length - 1) / 2)] as T;
}
const same = (n: number) => n;

/**
 * Opens a fresh database (SQLite: a new file; PostgreSQL: a new schema), runs fn, drops it. Every write
 * measurement starts from empty tables: with eventIds spread over the whole (event_id, revision) index, a
 * measurement on a table earlier ones filled would write more index pages than the baseline next to it.
 */
async function onFresh<T>(open: () => Promise<Backend>, fn: (b: Backend) => Promise<T>): Promise<T> {
  const b = await open();
  try {
    return await fn(b);
  } finally {
    await b.close();
  }
}

async function suiteFor(open: () => Promise<Backend>): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const { name, durability } = await onFresh(open, async (b) => ({
    name: b.name,
    durability: await b.durability(),
  }));
  const log = (m: string) => console.log(`  [${name}] ${m}`);

  log(`${RUNS} rounds: baseline (plain batched INSERTs of ${INGEST_FRAMES} rows), store only, lane ingest`);
  const baselines: number[] = [];
  const storeRuns: number[] = [];
  const schemaRuns: { events: number; withFrames: number }[] = [];
  const ingestRuns = new Map<number, IngestResult[]>([
    [1, []],
    [100, []],
  ]);
  for (let round = 0; round < RUNS; round++) {
    baselines.push(await onFresh(open, (b) => measurePlainInsert(b, INGEST_FRAMES, 'ingest')));
    storeRuns.push(await onFresh(open, (b) => measureStoreOnly(b, INGEST_FRAMES, 'diag')));
    if (name === 'sqlite') {
      schemaRuns.push({
        events: await onFresh(open, (b) => measurePlainIntoSchema(b, INGEST_FRAMES, false, 'events')),
        withFrames: await onFresh(open, (b) => measurePlainIntoSchema(b, INGEST_FRAMES, true, 'frames')),
      });
    }
    for (const [subs, runs] of ingestRuns) {
      runs.push(await onFresh(open, (b) => measureIngest(b, INGEST_FRAMES, subs, `${subs}`)));
    }
  }
  const baseline = medianOf(baselines, same);
  out.push({
    name: `${name}: baseline plain INSERT, batch 1000`,
    unit: 'events/s',
    value: baseline,
    extra: `${INGEST_FRAMES} rows (the lane's own rows: same eventIds, envelope, payload); ${durability}; median of ${RUNS} rounds, each measurement on a fresh database`,
  });
  if (schemaRuns.length > 0) {
    const events = medianOf(schemaRuns, (r) => r.events).events;
    const withFrames = medianOf(schemaRuns, (r) => r.withFrames).withFrames;
    out.push({
      name: `${name}: diagnostic, plain INSERTs into canonical_events`,
      unit: 'events/s',
      value: events,
      ratio: events / baseline,
      extra:
        "the baseline's rows and batches into the store's own table (its run index and append-only trigger), no lane code",
    });
    out.push({
      name: `${name}: diagnostic, plain INSERTs into canonical_events + source_frames`,
      unit: 'events/s',
      value: withFrames,
      ratio: withFrames / baseline,
      extra:
        "as above plus each row's native frame in the same transaction: the schema's floor for the lane, with no lane code",
    });
  }
  const storeOnly = medianOf(storeRuns, same);
  out.push({
    name: `${name}: diagnostic, store appendFrames + appendEvents only`,
    unit: 'events/s',
    value: storeOnly,
    ratio: storeOnly / baseline,
    extra: 'the store part of ingest: no translation, no delivery (ratio vs the plain INSERT baseline)',
  });
  for (const [subs, runs] of ingestRuns) {
    const r = medianOf(runs, (x) => x.eventsPerSec);
    out.push({
      name: `${name}: lane ingest, ${subs} subscriber${subs > 1 ? 's' : ''}`,
      unit: 'events/s',
      value: r.eventsPerSec,
      ratio: r.eventsPerSec / baseline,
      extra: `frames stored + translated + persisted + delivered; baseline ${fmt(baseline)} events/s; mean group commit ${fmt(r.meanBatch)} frames`,
    });
    out.push({
      name: `${name}: lane ingest, ${subs} sub, p50 latency`,
      unit: 'ms',
      value: r.p50Ms,
      extra: 'frame emitted → every subscriber, at a steady 1000 frames/s',
    });
    out.push({
      name: `${name}: lane ingest, ${subs} sub, p99 latency`,
      unit: 'ms',
      value: r.p99Ms,
      extra: 'frame emitted → every subscriber, at a steady 1000 frames/s',
    });
  }

  if (name === 'sqlite' && existsSync('/dev/shm')) out.push(...(await ingestOnTmpfs()));
  return [...out, ...(await onFresh(open, (b) => latencyAndReplay(b, durability)))];
}

/**
 * Diagnostic: ingest and its baseline again on tmpfs, where a commit's WAL writes and fsync cost nothing:
 * the ratio of the code alone (CPU), which the disk figures above improve on as the lane commits less often.
 */
async function ingestOnTmpfs(): Promise<BenchResult[]> {
  const open = () => sqliteBackend('/dev/shm');
  const baselines: number[] = [];
  const lanes: IngestResult[] = [];
  for (let round = 0; round < RUNS; round++) {
    baselines.push(await onFresh(open, (b) => measurePlainInsert(b, INGEST_FRAMES, 'ingest')));
    lanes.push(await onFresh(open, (b) => measureIngest(b, INGEST_FRAMES, 1, 'tmpfs')));
  }
  const baseline = medianOf(baselines, same);
  const lane = medianOf(lanes, (x) => x.eventsPerSec);
  return [
    {
      name: 'sqlite on tmpfs: baseline plain INSERT, batch 1000',
      unit: 'events/s',
      value: baseline,
      extra: 'diagnostic: same rows and settings on tmpfs (fsync costs nothing)',
    },
    {
      name: 'sqlite on tmpfs: lane ingest, 1 subscriber',
      unit: 'events/s',
      value: lane.eventsPerSec,
      ratio: lane.eventsPerSec / baseline,
      extra: `diagnostic: the lane's own CPU against plain INSERTs; baseline ${fmt(baseline)} events/s`,
    },
  ];
}

async function latencyAndReplay(b: Backend, durability: string): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const log = (m: string) => console.log(`  [${b.name}] ${m}`);
  log('idle single-frame latency, 200 samples');
  const idle = await measureIdleLatency(b, 200, 'disk');
  // SQLite's durability is an fdatasync of the WAL on this disk: measured right after, same directory.
  const floor = b.name === 'sqlite' ? await measureFsyncFloor(tmpdir()) : null;
  const floorText = floor
    ? `; raw fsync floor (4 KB + fdatasync, same disk, same run): p50 ${fmt(floor.p50Ms)} / p99 ${fmt(floor.p99Ms)} ms (appending: ${fmt(floor.appendP50Ms)} / ${fmt(floor.appendP99Ms)} ms); a commit's own floor (7 pages written over a restarted WAL + fdatasync): p50 ${fmt(floor.commitP50Ms)} / p99 ${fmt(floor.commitP99Ms)} ms; floors sampled ${IDLE_GAP_MS} ms apart, the idle frames' cadence`
    : '';
  if (floor) {
    log(
      `idle p50 ${fmt(idle.p50Ms)} / p99 ${fmt(idle.p99Ms)} ms; fsync floor p50 ${fmt(floor.p50Ms)} / p99 ${fmt(floor.p99Ms)} ms; commit floor p50 ${fmt(floor.commitP50Ms)} / p99 ${fmt(floor.commitP99Ms)} ms`,
    );
  }
  out.push({
    name: `${b.name}: idle single frame, p50 latency`,
    unit: 'ms',
    value: idle.p50Ms,
    extra: `${durability}${floorText}`,
  });
  out.push({
    name: `${b.name}: idle single frame, p99 latency`,
    unit: 'ms',
    value: idle.p99Ms,
    extra: `${durability}${b.name === 'sqlite' ? '; target ≤ 1 ms on a quiet disk' : ''}${floorText}`,
  });
  if (floor) {
    out.push({
      name: 'sqlite: raw fsync floor, p50',
      unit: 'ms',
      value: floor.p50Ms,
      extra: '4 KB written over one block + fdatasync, in the directory of the database, same run',
    });
    out.push({
      name: 'sqlite: raw fsync floor, p99',
      unit: 'ms',
      value: floor.p99Ms,
      extra: `appending 4 KB + fdatasync: p50 ${fmt(floor.appendP50Ms)} / p99 ${fmt(floor.appendP99Ms)} ms`,
    });
    out.push({
      name: 'sqlite: commit floor (7 pages over the WAL + fdatasync), p99',
      unit: 'ms',
      value: floor.commitP99Ms,
      extra: `p50 ${fmt(floor.commitP50Ms)} ms; what one idle frame's commit writes, synced with fdatasync as agentlane's SQLite build does`,
    });
  }

  if (b.name === 'sqlite' && existsSync('/dev/shm')) {
    // The same on tmpfs, where fsync is free: what the lane's own code costs, without the disk.
    const mem = await sqliteBackend('/dev/shm');
    try {
      const fast = await measureIdleLatency(mem, 200, 'tmpfs');
      out.push({
        name: 'sqlite on tmpfs: idle single frame, p99 latency',
        unit: 'ms',
        value: fast.p99Ms,
        extra: `p50 ${fmt(fast.p50Ms)} ms; diagnostic: same code and durability settings, fsync costs nothing`,
      });
    } finally {
      await mem.close();
    }
  }

  log(`replay: preparing a ${REPLAY_EVENTS}-event thread`);
  const t0 = performance.now();
  const threadId = await prepareReplay(b, REPLAY_EVENTS);
  log(`prepared in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  // Alternating, so neither side is the only one to pay for a cold cache; best of two for small threads.
  let select = 0;
  let replay = 0;
  const passes = REPLAY_EVENTS > 200_000 ? 1 : 2;
  for (let i = 0; i < passes; i++) {
    select = Math.max(select, await measurePlainSelect(b, threadId, REPLAY_EVENTS));
    log(`plain SELECT: ${fmt(select)} events/s`);
    replay = Math.max(replay, await measureReplay(b, threadId, REPLAY_EVENTS));
    log(`lane replay: ${fmt(replay)} events/s`);
  }
  out.push({
    name: `${b.name}: baseline plain SELECT of a thread`,
    unit: 'events/s',
    value: select,
    extra: `${REPLAY_EVENTS} rows`,
  });
  out.push({
    name: `${b.name}: lane replay from after=0`,
    unit: 'events/s',
    value: replay,
    ratio: replay / select,
    extra: `${REPLAY_EVENTS} events; baseline ${fmt(select)} events/s`,
  });
  return out;
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const backend of BACKENDS) {
    if (backend === 'sqlite') {
      results.push(...(await suiteFor(() => sqliteBackend())));
    } else if (backend === 'postgres') {
      const why = await postgresAvailable();
      if (why) {
        console.log(`  [postgres] skipped: unreachable (${why})`);
        continue;
      }
      results.push(...(await suiteFor(() => postgresBackend())));
    }
  }
  return results;
}
