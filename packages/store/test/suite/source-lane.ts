import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { SuiteContext } from './context';

/** SourceLaneStore: native frames, sealing, the raw sidecar. */
export function sourceLaneTests(s: SuiteContext): void {
  const { test, newThread, newRun, code } = s;

  test('source lane: native seqs, seal, late frames refused and recorded', async ({ store }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const at = new Date().toISOString();
    const first = await store.appendFrames(runId, [
      { receivedAt: at, frame: { a: 1 } },
      { receivedAt: at, frame: [1, 'two'] },
    ]);
    expect(first.map((f) => f.nativeSeq)).toEqual([1, 2]);
    const concurrent = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.appendFrames(runId, [{ receivedAt: at, frame: { i } }])),
    );
    expect(concurrent.map((c) => c[0]?.nativeSeq).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual([
      3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    ]);
    expect((await store.readFrames(runId)).map((f) => f.nativeSeq)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    ]);
    expect((await store.readFrames(runId, 10)).map((f) => f.frame)).toEqual(
      (await store.readFrames(runId)).slice(10).map((f) => f.frame),
    );
    expect((await store.readFrames(runId))[1]?.frame).toEqual([1, 'two']);

    const open = await store.readWatermark(runId);
    expect(open).toMatchObject({ maxNativeSeq: 12, sealed: false });
    const sealed = await store.sealSource(runId);
    expect(sealed).toEqual({ ...open, sealed: true });
    expect(await store.sealSource(runId)).toEqual(sealed);

    expect(await code(store.appendFrames(runId, [{ receivedAt: at, frame: { late: true } }]))).toBe(
      'source_sealed',
    );
    const refused = await store.listRefusedFrames(runId);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ frame: { late: true }, receivedAt: at });
    expect(refused[0]?.reason).toMatch(/sealed/);
    expect(await store.readWatermark(runId)).toEqual(sealed);

    expect(await code(store.appendFrames('run_missing', [{ receivedAt: at, frame: 1 }]))).toBe('not_found');
    expect(await code(store.readWatermark('run_missing'))).toBe('not_found');
    expect(await code(store.appendFrames(runId, [{ receivedAt: 5 as unknown as string, frame: 1 }]))).toBe(
      'invalid',
    );
  });

  test('a batch retried after its commit went through is not stored twice (expectedFirstSeq)', async ({
    store,
  }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const at = new Date().toISOString();
    await store.appendFrames(runId, [{ receivedAt: at, frame: { n: 1 } }]);
    const batch = [
      { receivedAt: at, frame: { n: 2 } },
      { receivedAt: at, frame: { n: 3 } },
    ];
    const first = await store.appendFrames(runId, batch, { expectedFirstSeq: 2 });
    expect(first.map((f) => f.nativeSeq)).toEqual([2, 3]);
    // The writer did not hear the commit and sends the same batch again, expecting the same seqs.
    const again = await store.appendFrames(runId, batch, { expectedFirstSeq: 2 });
    expect(again).toEqual(first);
    expect((await store.readFrames(runId)).map((f) => f.frame)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    // Other frames at those seqs (another writer appended) are no retry: the batch is appended after them.
    const moved = await store.appendFrames(runId, [{ receivedAt: at, frame: { n: 9 } }], {
      expectedFirstSeq: 3,
    });
    expect(moved.map((f) => f.nativeSeq)).toEqual([4]);
  });

  test('live rows of a run are refused once its lane is sealed; the final pass still writes', async ({
    store,
  }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const at = new Date().toISOString();
    const row = (key: string, seq: number) => ({
      event: {
        schemaVersion: 1,
        eventId: `ev_${runId}_${key}`,
        seq,
        runId,
        threadId,
        turnId: runId,
        ts: at,
        identity: { provider: 'suite' },
        kind: 'message.delta',
        payload: { messageId: 'm1', partId: key, delta: key },
      } as never,
    });
    const live = { liveRunId: runId };
    await store.appendFrames(runId, [{ receivedAt: at, frame: { n: 1 } }]);
    expect((await store.appendEvents(threadId, [row('a', 1)], true, live)).inserted).toHaveLength(1);
    await store.sealSource(runId);
    // The same batch shape the live pass issues: its frames refused (and recorded), its rows refused.
    const [frames, rows] = await Promise.allSettled([
      store.appendFrames(runId, [{ receivedAt: at, frame: { n: 2 } }]),
      store.appendEvents(threadId, [row('b', 2)], true, live),
    ]);
    expect(frames.status === 'rejected' && (frames.reason as { code?: string }).code).toBe('source_sealed');
    expect(rows.status === 'rejected' && (rows.reason as { code?: string }).code).toBe('source_sealed');
    expect((await store.readEvents(threadId, 0, 100)).map((r) => r.eventId)).toEqual([`ev_${runId}_a`]);
    // Without liveRunId (the final pass over the sealed frames) rows are written.
    expect((await store.appendEvents(threadId, [row('c', 2)], true)).inserted).toHaveLength(1);
  });

  test('raw sidecar: inline up to the limit, larger raw as an artifact, omitted past the run budget', async ({
    store,
    fx,
  }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    // A store with small bounds on the same database: 16 bytes inline, 64 bytes per run.
    const small = await fx.openPeer({ rawSidecar: { inlineMaxBytes: 16, maxBytesPerRun: 64 } });
    const at = new Date().toISOString();
    const big = 'x'.repeat(40);
    const bytes = new Uint8Array([0, 255, 10, 13]);
    await small.appendFrames(runId, [
      { receivedAt: at, frame: { n: 1 }, raw: '{"n":1}\n' },
      { receivedAt: at, frame: { n: 2 } },
      { receivedAt: at, frame: { n: 3 }, raw: big },
      { receivedAt: at, frame: { n: 4 }, raw: bytes },
    ]);
    // 8 + 40 + 4 = 52 bytes kept; 20 more would pass 64: omitted, size and sha256 still recorded.
    await small.appendFrames(runId, [{ receivedAt: at, frame: { n: 5 }, raw: 'y'.repeat(20) }]);
    const raw = await store.readRawFrames(runId);
    expect(raw.map((r) => [r.nativeSeq, r.storage, r.bytes])).toEqual([
      [1, 'inline', 8],
      [3, 'artifact', 40],
      [4, 'inline', 4],
      [5, 'omitted', 20],
    ]);
    expect(Buffer.from(raw[0]?.content ?? []).toString('utf8')).toBe('{"n":1}\n');
    expect([...(raw[2]?.content ?? [])]).toEqual([0, 255, 10, 13]);
    expect(raw[3]?.content).toBeNull();
    expect(raw[3]?.sha256).toBe(createHash('sha256').update('y'.repeat(20)).digest('hex'));
    const artifact = await store.getArtifact(raw[1]?.artifactId ?? '');
    expect(Buffer.from(artifact?.content ?? []).toString('utf8')).toBe(big);
    expect(raw[1]?.sha256).toBe(artifact?.ref.sha256);
    // The budget is the run's, across calls and stores: it is kept on the locked lane row.
    await small.appendFrames(runId, [{ receivedAt: at, frame: { n: 6 }, raw: 'z'.repeat(12) }]);
    expect((await store.readRawFrames(runId, 5)).map((r) => r.storage)).toEqual(['inline']);
    // The sidecar is evidence beside the frames: the parsed frames and the watermark are unchanged by it.
    expect((await store.readFrames(runId)).map((f) => f.frame)).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => ({ n })),
    );
    expect(
      await code(store.appendFrames(runId, [{ receivedAt: at, frame: 1, raw: 5 as unknown as string }])),
    ).toBe('invalid');
    await store.finalizeRun(runId, 'completed');
    await store.deleteThread(threadId);
    expect(await store.readRawFrames(runId)).toEqual([]);
  });
}
