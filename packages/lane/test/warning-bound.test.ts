import type { JsonValue } from '@agentlane/contract';
import type { NativeFrameRecord } from '@agentlane/engine-kit';
import { describe, expect, it } from 'vitest';
import { MAX_RUN_WARNINGS, RunTranslation, WARNINGS_LIMITED, WARNINGS_SUPPRESSED } from '../src';
import { deepFrame } from './helpers/frame-driver';
import { sqliteTestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';
import { openTestPipeline } from './helpers/test-pipeline';
import { createTestTranslator } from './helpers/test-translator';
import { canonicalizeRun, livePipeline, threadFixture } from './helpers/thread-fixture';

const ctx = { threadId: 'th', runId: 'r1', turnId: 'r1', provider: 'test' };
const ts = new Date(0).toISOString();
const record = (nativeSeq: number, frame: JsonValue): NativeFrameRecord => ({
  runId: 'r1',
  nativeSeq,
  receivedAt: ts,
  frame,
});

/** The test translator makes each frame it does not know a harness.warning `unknown_frame` keyed by the frame. */
const badFrame = (i: number): JsonValue => ({ t: 'garbage', i });

type Warning = { code: string; message: string; detail?: Record<string, JsonValue> };

describe('RunTranslation: the bound on a run’s harness.warning events', () => {
  it('keeps the first N, says once that the rest are counted, and sums them up by code at the end', () => {
    const run = new RunTranslation(createTestTranslator(), ctx, { maxWarnings: 10 });
    const events = [];
    for (let i = 1; i <= 40; i++) events.push(...run.push(record(i, badFrame(i))).events);
    // A frame.dropped (another code) past the bound: counted under its own code.
    events.push(
      ...run.push(record(41, { harness: 'frame.dropped', reason: 'x', message: 'dropped' })).events,
    );
    events.push(...run.push(record(42, { t: 'delta', text: 'still translated' })).events);
    const live = events.filter((e) => e.event.kind === 'harness.warning');
    expect(live).toHaveLength(11);
    expect(live.slice(0, 10).map((e) => (e.event.payload as Warning).code)).toEqual(
      Array(10).fill('unknown_frame'),
    );
    expect(live[10]?.event.payload).toMatchObject({ code: WARNINGS_LIMITED, detail: { limit: 10 } });
    // Other events are not touched by the bound.
    expect(events.some((e) => e.event.kind === 'message.delta')).toBe(true);

    const end = run.finish(ts).events;
    const summary = end[end.length - 1]?.event;
    expect(summary?.kind).toBe('harness.warning');
    expect(summary?.payload).toMatchObject({
      code: WARNINGS_SUPPRESSED,
      detail: { limit: 10, suppressed: 31, byCode: { unknown_frame: 30, 'harness.frame_dropped': 1 } },
    });
    // Seqs stay dense: a counted warning takes none.
    const seqs = [...events, ...end].map((e) => e.event.seq);
    expect(new Set(seqs).size).toBe(Math.max(...seqs));
  });

  it('the same frames give the same events (live and final pass agree); no summary when nothing was counted', () => {
    const translate = (n: number) => {
      const run = new RunTranslation(createTestTranslator(), ctx);
      const out = [];
      for (let i = 1; i <= n; i++) out.push(...run.push(record(i, badFrame(i))).events);
      out.push(...run.finish(ts).events);
      return out;
    };
    expect(translate(MAX_RUN_WARNINGS + 5)).toEqual(translate(MAX_RUN_WARNINGS + 5));
    const few = translate(MAX_RUN_WARNINGS);
    expect(few).toHaveLength(MAX_RUN_WARNINGS);
    expect(few.map((e) => (e.event.payload as Warning).code)).not.toContain(WARNINGS_SUPPRESSED);
  });
});

describe('a run flooded with bad frames (SQLite)', () => {
  const fx = threadFixture();
  const driver = createTestDriver();

  it('stores 100 warnings, the notice and the summary; every frame and its raw bytes are kept', async () => {
    const runId = await fx.newRun();
    const n = 3 * MAX_RUN_WARNINGS;
    const lines = Array.from({ length: n }, (_, i) => `{"t":"garbage","i":${i}}\n`);
    const pipeline = livePipeline(fx, driver, runId);
    pipeline.emit({ harness: 'turn.started', prompt: 'p' });
    for (const line of lines) pipeline.emit(JSON.parse(line), line);
    pipeline.emit({ harness: 'turn.ended', outcome: 'completed' });
    await pipeline.drain();
    pipeline.close();

    const warnings = async () =>
      (await fx.t.store.readEvents('th', 0, 10_000))
        .filter((r) => r.kind === 'harness.warning')
        .map((r) => r.event.payload as Warning);
    const live = await warnings();
    expect(live).toHaveLength(MAX_RUN_WARNINGS + 1);
    expect(live[MAX_RUN_WARNINGS]?.code).toBe(WARNINGS_LIMITED);

    await canonicalizeRun(fx, driver, runId);
    const all = await warnings();
    expect(all).toHaveLength(MAX_RUN_WARNINGS + 2);
    expect(all[all.length - 1]).toMatchObject({
      code: WARNINGS_SUPPRESSED,
      detail: { suppressed: n - MAX_RUN_WARNINGS, byCode: { unknown_frame: n - MAX_RUN_WARNINGS } },
    });
    // Nothing else about the frames is lost: all of them in the source lane, their wire bytes in the sidecar.
    expect(await fx.t.store.readFrames(runId)).toHaveLength(n + 2);
    const raw = await fx.t.store.readRawFrames(runId);
    expect(raw.map((r) => Buffer.from(r.content ?? []).toString('utf8'))).toEqual(lines);
  });
});

describe('frames dropped as too deep (SQLite)', () => {
  it('the log names the first ten and then their count once, not a line per frame', async () => {
    const t = await sqliteTestStore({ fast: true });
    try {
      const { pipeline, hub, logs, runId } = await openTestPipeline(t, {
        translator: createTestTranslator() as never,
      });
      const deep = deepFrame(300);
      for (let i = 0; i < 50; i++) pipeline.emit(deep.frame, deep.raw);
      await pipeline.drain();
      pipeline.close();
      hub.close();
      const dropped = logs.filter((l) => l.includes('dropped'));
      expect(dropped).toHaveLength(11);
      expect(dropped[9]).toContain('further drops are counted');
      expect(dropped[10]).toContain('50 frames from the engine were dropped in all');
      // Each still stands in the source lane as its frame.dropped harness frame.
      expect(await t.store.readFrames(runId)).toHaveLength(50);
    } finally {
      await t.cleanup();
    }
  });
});
