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

  test('frames read a page at a time: by count, and by the bytes of their JSON', async ({ store }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const other = await newRun(threadId);
    const at = new Date().toISOString();
    // Frames of 11, 21, 31, ... bytes of JSON ({"s":"…"} is 8 plus the string).
    const frames = Array.from({ length: 10 }, (_, i) => ({ s: 'x'.repeat(i * 10 + 3) }));
    await store.appendFrames(
      runId,
      frames.map((frame) => ({ receivedAt: at, frame })),
    );
    await store.appendFrames(other, [{ receivedAt: at, frame: { other: true } }]);
    const all = await store.readFrames(runId);
    const seqs = (page: { nativeSeq: number }[]) => page.map((f) => f.nativeSeq);

    expect(seqs(await store.readFrames(runId, 0, { limit: 4 }))).toEqual([1, 2, 3, 4]);
    expect(seqs(await store.readFrames(runId, 8, { limit: 4 }))).toEqual([9, 10]);
    expect(await store.readFrames(runId, 10, { limit: 4 })).toEqual([]);
    expect(await store.readFrames(runId, 0, { limit: 4 })).toEqual(all.slice(0, 4));
    // Paging through with a cursor gives every frame once, in order.
    const paged = [];
    for (let after = 0; ; ) {
      const page = await store.readFrames(runId, after, { limit: 3, maxBytes: 50 });
      if (page.length === 0) break;
      paged.push(...page);
      after = page.at(-1)?.nativeSeq ?? after;
    }
    expect(paged).toEqual(all);

    const bytes = all.map((f) => Buffer.byteLength(JSON.stringify(f.frame)));
    // Frames are kept while the ones before them are under maxBytes: 11 + 21 < 40, then 11 + 21 + 31 ≥ 40.
    expect(bytes.slice(0, 3)).toEqual([11, 21, 31]);
    expect(seqs(await store.readFrames(runId, 0, { limit: 10, maxBytes: 40 }))).toEqual([1, 2, 3]);
    expect(seqs(await store.readFrames(runId, 0, { limit: 10, maxBytes: 32 }))).toEqual([1, 2]);
    expect(seqs(await store.readFrames(runId, 0, { limit: 2, maxBytes: 1000 }))).toEqual([1, 2]);
    // The first frame comes whatever its size: a read always moves on.
    expect(seqs(await store.readFrames(runId, 9, { limit: 10, maxBytes: 1 }))).toEqual([10]);
    expect(await store.readFrames(runId, 9, { limit: 10, maxBytes: 1 })).toEqual(all.slice(9));

    // Bytes, not characters: {"s":"éééé"} is 12 characters and 16 bytes.
    const accents = await newRun(threadId);
    await store.appendFrames(
      accents,
      [1, 2].map(() => ({ receivedAt: at, frame: { s: 'éééé' } })),
    );
    expect(seqs(await store.readFrames(accents, 0, { limit: 10, maxBytes: 17 }))).toEqual([1, 2]);
    expect(seqs(await store.readFrames(accents, 0, { limit: 10, maxBytes: 16 }))).toEqual([1]);

    expect(await code(store.readFrames(runId, 0, { limit: 0 }))).toBe('invalid');
    expect(await code(store.readFrames(runId, 0, { limit: 2, maxBytes: 0 }))).toBe('invalid');
    expect(await code(store.readFrames(runId, 0, { limit: 1.5 }))).toBe('invalid');
  });

  test('the watermark covers every frame of a source larger than one read (bounded in bytes)', async ({
    store,
    fx,
  }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const at = new Date().toISOString();
    // 1.5 MB frames with no stored hash (an older build's rows, a foreign tool's), signed by their text: the
    // watermark reads frames up to 4 MB at a time, so these three and a small one take two reads.
    const texts = ['a', 'b', 'c'].map((c) => JSON.stringify({ s: c.repeat(1536 * 1024) }));
    for (const [i, text] of texts.entries()) {
      await fx.execSql(
        'INSERT INTO source_frames (run_id, native_seq, received_at, frame) VALUES (?, ?, ?, ?)',
        [runId, i + 1, at, text],
      );
    }
    await fx.execSql('UPDATE source_lanes SET max_native_seq = 3 WHERE run_id = ?', [runId]);
    await store.appendFrames(runId, [{ receivedAt: at, frame: { n: 4 } }]);
    const hash = createHash('sha256');
    for (const f of await store.readFrames(runId))
      hash.update(`${f.nativeSeq}\n${JSON.stringify(f.frame)}\n`);
    const watermark = await store.readWatermark(runId);
    expect(watermark).toEqual({ maxNativeSeq: 4, signature: `sha256-${hash.digest('hex')}`, sealed: false });
    // A rewrite of the last frame (in the last read) still changes it.
    await fx.rewriteFrame(runId, 4, { n: 5 });
    expect((await store.readWatermark(runId)).signature).not.toBe(watermark.signature);
  });
}
