import type { AuditableCall, DeliveryRow } from '@agentlane/contract';
import type { EventWrite, Store } from '@agentlane/store';
import { describe, expect, it } from 'vitest';
import { RunTranslation } from '../src';
import {
  type CanonicalizerOptions,
  deriveEventId,
  type FinalPassPaging,
  Materializer,
  writeFinalPass,
} from '../src/internal';
import { spyStore, wholeRunWrites } from './helpers/final-pass';
import { createAuditingTranslator } from './helpers/frame-driver';
import { createTestDriver } from './helpers/test-driver';
import { canonicalizeRun, livePipeline, threadFixture } from './helpers/thread-fixture';

const at = new Date(0).toISOString();
const started = { harness: 'turn.started', prompt: 'p' };
const ended = { harness: 'turn.ended', outcome: 'completed' };
const delta = (i: number, size = 0) => ({ t: 'delta', text: `d${i}`.padEnd(size, '.') });
const snap = (id: string, text: string) => ({ t: 'snapshot', id, text });
const text = (r: DeliveryRow | EventWrite) => (r.event.payload as { text?: string }).text;
const shape = (rows: (DeliveryRow | EventWrite)[]) => rows.map((r) => [r.event.eventId, r.event]);

/**
 * The final pass holds a page of the run, not the run (final-pass.ts). Whatever the page size, it writes what
 * the whole-run pass wrote (helpers/final-pass.ts keeps that algorithm as the reference): each eventId once,
 * at its end state, only where it differs from the latest stored revision, an eventId not stored yet in the
 * slot of its first emission.
 */
describe('final pass, a page at a time (SQLite)', () => {
  const fx = threadFixture();
  const driver = createTestDriver();

  /** Frames only the source lane has (the live pass never translated them: its process went away). */
  async function appendSource(runId: string, frames: object[]): Promise<void> {
    for (let i = 0; i < frames.length; i += 2000) {
      const chunk = frames.slice(i, i + 2000);
      await fx.t.store.appendFrames(
        runId,
        chunk.map((frame) => ({ receivedAt: at, frame: frame as never })),
      );
    }
  }

  /** The live pass (the executor's pipeline) over `frames`: stored, translated, rows written. */
  async function livePass(runId: string, frames: object[]): Promise<void> {
    const pipeline = livePipeline(fx, driver, runId);
    for (const frame of frames) pipeline.emit(frame as never);
    await pipeline.drain();
    pipeline.close();
  }

  const canonicalize = (runId: string, options: Partial<CanonicalizerOptions> = {}) =>
    canonicalizeRun(fx, driver, runId, options);

  const allRows = () => fx.t.store.readEvents('th', 0, 100_000);

  /** The final pass alone (no seal, no completion), with what it reports of its queue. */
  function finalPass(store: Store, runId: string, paging: FinalPassPaging) {
    const ctx = { threadId: 'th', runId, turnId: runId, provider: driver.provider };
    return writeFinalPass({
      store,
      hub: fx.hub,
      threadId: 'th',
      runId,
      translation: () => new RunTranslation(driver.translator, ctx),
      endTs: at,
      materializer: new Materializer(fx.t.store),
      audit: async () => true,
      paging,
    });
  }

  it('a 20,000-frame run the live pass stored nothing of: the whole-run result, read and written a page at a time', async () => {
    const runId = await fx.newRun();
    // Re-emitted keys: `short<i>` 40 frames after its first emission (across a page boundary of 64 frames
    // most times), `long` from the start to the end (longer than `span`: its end state is kept by the scan).
    const frames: object[] = [started, snap('long', 'v0')];
    for (let i = 0; i < 20_000; i++) {
      frames.push(i % 100 === 50 ? snap(`short${i}`, 'first') : delta(i));
      if (i % 100 === 90) frames.push(snap(`short${i - 40}`, 'last'));
      if (i % 5000 === 4999) frames.push(snap('long', `v${i}`));
    }
    frames.push(ended);
    await appendSource(runId, frames);
    const expected = await wholeRunWrites(fx.t.store, driver, 'th', runId);
    // A batch shorter than the 41 emissions a `short` slot waits: flushes come while slots wait.
    const paging: Partial<FinalPassPaging> = { frames: 64, rows: 100, batch: 32, span: 500 };
    const spied = spyStore(fx.t.store);

    const outcome = await canonicalize(runId, { store: spied.store, finalPassPaging: paging });
    const rows = await allRows();
    expect(shape(rows)).toEqual(shape(expected));
    expect(outcome.revised).toBe(rows.length);
    // Every eventId once, at revision 1, in the order of its first emission (deliverySeq order = seq order).
    expect(new Set(rows.map((r) => r.eventId)).size).toBe(rows.length);
    expect(rows.every((r) => r.revision === 1)).toBe(true);
    expect(rows.map((r) => r.event.seq)).toEqual(rows.map((_, i) => i + 1));
    const long = rows.find((r) => r.eventId === deriveEventId(runId, 'snap:long'));
    expect([long?.event.seq, long && text(long)]).toEqual([2, 'v19999']);
    // Paged: never the whole run at once, each read at most a page, each append at most a batch.
    expect(spied.calls.wholeReads).toBe(0);
    expect(spied.calls.frameReads.every((r) => r.page?.limit === 64 && r.sizes.length <= 64)).toBe(true);
    // Two passes over the frames, 64 at a time, each ending on an empty read.
    expect(spied.calls.frameReads.length).toBe(2 * (Math.ceil(frames.length / 64) + 1));
    expect(Math.max(...spied.calls.appends)).toBeLessThanOrEqual(32);
    expect(spied.calls.appends.reduce((a, b) => a + b, 0)).toBe(rows.length);
  }, 120_000);

  it('holds at most a page of frames, a page of rows and `batch + span` queued writes, whatever the run', async () => {
    const runId = await fx.newRun();
    // Some 10 KB frames (bounded by bytes, not by count), and slots that wait almost `span` emissions.
    const frames: object[] = [started];
    for (let i = 0; i < 5000; i++) {
      frames.push(i >= 2000 && i < 2100 ? delta(i, 10_000) : delta(i));
      if (i % 300 === 10) frames.push(snap(`wait${i}`, 'first'));
      if (i % 300 === 200) frames.push(snap(`wait${i - 190}`, 'last'));
      if (i === 7 || i === 4990) frames.push(snap('end-to-end', `at ${i}`));
    }
    frames.push(ended);
    await appendSource(runId, frames);
    const expected = await wholeRunWrites(fx.t.store, driver, 'th', runId);
    const paging: FinalPassPaging = { frames: 32, frameBytes: 25_000, rows: 20, batch: 40, span: 200 };
    const spied = spyStore(fx.t.store);
    const result = await finalPass(spied.store, runId, paging);
    expect(shape(await allRows())).toEqual(shape(expected));
    expect(result.revised).toBe(expected.length);
    for (const read of spied.calls.frameReads) {
      expect(read.sizes.length).toBeLessThanOrEqual(32);
      // Every frame of a read but its last starts under the byte bound.
      expect(read.sizes.slice(0, -1).reduce((a, b) => a + b, 0)).toBeLessThan(25_000);
    }
    // Three 10 KB frames a read: 20 KB before the third is under 25,000 bytes, 30 KB before a fourth is not.
    const big = Buffer.byteLength(JSON.stringify(delta(2000, 10_000)));
    const bigReads = spied.calls.frameReads
      .filter((r) => r.sizes.length > 0 && r.sizes.every((size) => size === big))
      .map((r) => r.sizes.length);
    expect(bigReads.length).toBeGreaterThan(40);
    expect(new Set(bigReads)).toEqual(new Set([3]));
    // The queue: at most a batch ready to go, plus the emissions a waiting first slot may wait.
    expect(result.peakQueued).toBeGreaterThan(paging.span / 2);
    expect(result.peakQueued).toBeLessThanOrEqual(paging.batch + paging.span);
    expect(result.held).toBe(1);
    expect(Math.max(...spied.calls.appends)).toBeLessThanOrEqual(paging.batch);

    // A second pass over the same run: every row now stored, read 20 at a time; nothing written.
    const again = spyStore(fx.t.store);
    const second = await finalPass(again.store, runId, paging);
    expect(second).toMatchObject({ revised: 0, peakQueued: 0, held: 0 });
    expect(again.calls.rowReads.length).toBe(Math.floor(expected.length / 20) + 1);
    expect(again.calls.rowReads.every((r) => r.limit === 20 && r.rows <= 20)).toBe(true);
    expect(again.calls.appends).toEqual([]);
  });

  it.each([
    ['waits in the queue for its end state', 1000],
    ['has its end state kept by the scan', 20],
  ])('an unstored eventId whose first and last emissions are pages apart %s (a crash)', async (_, span) => {
    const runId = await fx.newRun();
    const deltas = (from: number) => Array.from({ length: 25 }, (_, i) => delta(from + i));
    await appendSource(runId, [
      started,
      ...deltas(0),
      snap('x', 'first'),
      ...deltas(100),
      snap('x', 'second'),
      ...deltas(200),
      snap('x', 'last'),
      ...deltas(300),
      ended,
    ]);
    const expected = await wholeRunWrites(fx.t.store, driver, 'th', runId);
    await canonicalize(runId, { finalPassPaging: { frames: 16, batch: 8, span } });
    const rows = await allRows();
    expect(shape(rows)).toEqual(shape(expected));
    const x = rows.filter((r) => r.eventId === deriveEventId(runId, 'snap:x'));
    // Once, at its end state, in the slot of its first emission (page 2 of 7; the last comes in page 5).
    expect(x.map((r) => [r.revision, text(r), r.deliverySeq])).toEqual([[1, 'last', 28]]);
    expect(rows.map((r) => r.event.seq)).toEqual(rows.map((_, i) => i + 1));
  });

  it('a stored eventId revised pages later gets one revision; what the live pass missed comes in first-emission order', async () => {
    const runId = await fx.newRun();
    const deltas = (from: number, n = 25) => Array.from({ length: n }, (_, i) => delta(from + i));
    // The live pass stored the first half (x and y at their first versions), then its process went away.
    await livePass(runId, [started, snap('x', 'x1'), snap('y', 'y1'), ...deltas(0)]);
    const live = await allRows();
    await appendSource(runId, [
      snap('z', 'z1'),
      ...deltas(100),
      snap('x', 'x2'),
      ...deltas(200),
      snap('y', 'y1'),
      snap('z', 'z2'),
      ...deltas(300, 200),
      ended,
    ]);
    const expected = await wholeRunWrites(fx.t.store, driver, 'th', runId);
    const spied = spyStore(fx.t.store);
    const outcome = await canonicalize(runId, {
      store: spied.store,
      finalPassPaging: { frames: 16, rows: 7, batch: 8, span: 1000 },
    });
    const added = (await allRows()).slice(live.length);
    // The same writes as the whole-run pass: y's end state equals its stored revision, so nothing for y.
    const byId = (rows: (DeliveryRow | EventWrite)[]) =>
      shape(rows).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(byId(added)).toEqual(byId(expected));
    expect(outcome.revised).toBe(added.length);
    expect(added.filter((r) => r.eventId === deriveEventId(runId, 'snap:y'))).toEqual([]);
    const x = added.filter((r) => r.eventId === deriveEventId(runId, 'snap:x'));
    expect(x.map((r) => [r.revision, text(r)])).toEqual([[2, 'x2']]);
    // What was not stored comes in the order of its first emission, as the whole-run pass wrote it.
    const stored = new Set(live.map((r) => r.eventId));
    const fresh = (rows: (DeliveryRow | EventWrite)[]) =>
      shape(rows).filter(([id]) => !stored.has(String(id)));
    expect(fresh(added)).toEqual(fresh(expected));
    expect(fresh(added)[0]?.[0]).toBe(deriveEventId(runId, 'snap:z'));
    expect(text(added.find((r) => r.eventId === deriveEventId(runId, 'snap:z')) as DeliveryRow)).toBe('z2');
    // The stored rows were read 7 at a time.
    expect(spied.calls.rowReads.length).toBe(Math.floor(live.length / 7) + 1);
    expect(spied.calls.rowReads.every((r) => r.rows <= 7)).toBe(true);
  });

  it('records the audit rows a page at a time; a failing ledger is tried once and logged once', async () => {
    const auditing = { ...driver, translator: createAuditingTranslator() };
    const frames = [started, ...Array.from({ length: 10 }, (_, i) => ({ t: 'audit', text: `a${i}` })), ended];
    const recorded: AuditableCall[][] = [];
    const runId = await fx.newRun();
    await appendSource(runId, frames);
    await canonicalize(runId, {
      driverFor: () => auditing,
      audit: { record: async (rows) => recorded.push([...rows]) },
      finalPassPaging: { frames: 4 },
    });
    // Pages of 4 frames: 3 audit rows in the first (after turn.started), then 4, then 3.
    expect(recorded.map((rows) => rows.length)).toEqual([3, 4, 3]);
    const texts = recorded.flat().map((r) => (r as unknown as { payload: { text: string } }).payload.text);
    expect(texts).toEqual(Array.from({ length: 10 }, (_, i) => `a${i}`));

    const failing = await fx.newRun();
    await appendSource(failing, frames);
    let tries = 0;
    const logs: string[] = [];
    await canonicalize(failing, {
      driverFor: () => auditing,
      audit: {
        record: async () => {
          tries++;
          throw new Error('ledger down');
        },
      },
      log: (level, message) => logs.push(`${level} ${message}`),
      finalPassPaging: { frames: 4 },
    });
    expect(tries).toBe(1);
    expect(logs.filter((l) => l.includes('audit rows'))).toHaveLength(1);
  });
});
