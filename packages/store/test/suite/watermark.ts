import { createHash } from 'node:crypto';
import type { JsonValue } from '@agentlane/contract';
import { expect } from 'vitest';
import type { Store } from '../../src/index';
import { HASHED_FRAME_CHARS, SIGNED_FRAME_PAGE } from '../../src/sql/source-lane';
import type { SuiteContext } from './context';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A frame whose JSON text (`{"s":"…"}`) is `chars` characters long. */
const frameOf = (chars: number, c = 'x'): JsonValue => ({ s: c.repeat(chars - 8) });

/**
 * The signature the store should give frames stored by appendFrames (seqs from 1): a large frame by its
 * hash, a small one (and any row given in `unhashed`) by its text.
 */
function signatureOf(texts: string[], unhashed: number[] = []): string {
  const hash = createHash('sha256');
  texts.forEach((text, i) => {
    const seq = i + 1;
    hash.update(
      text.length >= HASHED_FRAME_CHARS && !unhashed.includes(seq)
        ? `${seq}\n#${sha256(text)}\n`
        : `${seq}\n${text}\n`,
    );
  });
  return `sha256-${hash.digest('hex')}`;
}

/** The watermark over frame hashes: large frames are signed by the hash stored at append, their text unread. */
export function watermarkTests(s: SuiteContext): void {
  const { test, newThread, newRun } = s;
  const at = new Date().toISOString();
  // Small, large, small, very large, the smallest hashed, the largest not hashed.
  const frames = [
    { n: 1 },
    frameOf(20_000, 'a'),
    { n: 3 },
    frameOf(300_000, 'b'),
    frameOf(HASHED_FRAME_CHARS),
    frameOf(HASHED_FRAME_CHARS - 1),
  ];
  const texts = frames.map((f) => JSON.stringify(f));
  /** A new run of `threadId` (default: a new thread) holding `frames`, appended by the store. */
  const runWithFrames = async (store: Store, threadId?: string): Promise<string> => {
    const runId = await newRun(threadId ?? (await newThread()));
    await store.appendFrames(
      runId,
      frames.map((frame) => ({ receivedAt: at, frame })),
    );
    return runId;
  };

  test('large frames are signed by their stored hash; the watermark is stable and the same after a restart', async ({
    store,
    fx,
  }) => {
    const runId = await runWithFrames(store);
    const stored = await fx.querySql(
      'SELECT frame_sha256 FROM source_frames WHERE run_id = ? ORDER BY native_seq',
      [runId],
    );
    expect(stored.map((r) => r.frame_sha256)).toEqual([
      null,
      sha256(texts[1] as string),
      null,
      sha256(texts[3] as string),
      sha256(texts[4] as string),
      null,
    ]);
    const open = await store.readWatermark(runId);
    expect(open).toEqual({ maxNativeSeq: 6, signature: signatureOf(texts), sealed: false });
    expect(await store.readWatermark(runId)).toEqual(open);
    // Another store on the database, as a restarted process opens it.
    const restarted = await fx.openPeer();
    expect(await restarted.readWatermark(runId)).toEqual(open);
    expect(await store.sealSource(runId)).toEqual({ ...open, sealed: true });
    expect(await restarted.readWatermark(runId)).toEqual({ ...open, sealed: true });
    expect((await restarted.readFrames(runId)).map((f) => f.frame)).toEqual(frames);
  });

  test('a large frame rewritten in place, a frame row deleted or replaced: each changes the signature', async ({
    store,
    fx,
  }) => {
    const threadId = await newThread();
    const runId = await runWithFrames(store, threadId);
    await store.finalizeRun(runId, 'completed');
    const sealed = await store.sealSource(runId);
    const seen = new Set([sealed.signature]);
    const changed = async (): Promise<void> => {
      const now = await store.readWatermark(runId);
      expect(seen.has(now.signature)).toBe(false);
      seen.add(now.signature);
    };
    // The text of a hashed frame changes under its stored hash (plain SQL, as a foreign tool would).
    await fx.rewriteFrame(runId, 4, frameOf(300_000, 'c'));
    await changed();
    expect((await store.readWatermark(runId)).maxNativeSeq).toBe(6);
    expect(await store.completeCanonicalization(runId, sealed)).toBeNull();
    // A row deleted; then a row deleted and written back with other text under the old hash.
    await fx.execSql('DELETE FROM source_frames WHERE run_id = ? AND native_seq = 3', [runId]);
    await changed();
    await fx.execSql('DELETE FROM source_frames WHERE run_id = ? AND native_seq = 5', [runId]);
    await fx.execSql(
      'INSERT INTO source_frames (run_id, native_seq, received_at, frame, frame_sha256) VALUES (?, 5, ?, ?, ?)',
      [runId, at, JSON.stringify(frameOf(HASHED_FRAME_CHARS, 'y')), sha256(texts[4] as string)],
    );
    await changed();
    // A large frame replaced by a row of a tool that knows no hash: SQLite's INSERT OR REPLACE (which fires no
    // delete trigger), PostgreSQL's upsert.
    const replace =
      fx.dialect === 'sqlite'
        ? 'INSERT OR REPLACE INTO source_frames (run_id, native_seq, received_at, frame) VALUES (?, 2, ?, ?)'
        : 'INSERT INTO source_frames (run_id, native_seq, received_at, frame) VALUES (?, 2, ?, ?) ON CONFLICT (run_id, native_seq) DO UPDATE SET frame = EXCLUDED.frame';
    await fx.execSql(replace, [runId, at, JSON.stringify(frameOf(20_000, 'd'))]);
    await changed();
    // The retry translates from the source as it now stands and completes.
    const current = await store.readWatermark(runId);
    expect(await store.readWatermark(runId)).toEqual(current);
    expect(await store.completeCanonicalization(runId, current)).toMatchObject({ runId, watermark: current });
    // Deleting the thread still takes every frame (the rewrite count goes with the lane).
    await store.deleteThread(threadId);
    expect(await store.readFrames(runId)).toEqual([]);
    expect(await fx.querySql('SELECT run_id FROM source_lanes WHERE run_id = ?', [runId])).toEqual([]);
  });

  test('frames stored with no hash (an older build, a foreign tool) are signed by their text and complete', async ({
    store,
    fx,
  }) => {
    const runId = await newRun(await newThread());
    // Rows as a build before the frame hashes wrote them: no frame_sha256.
    for (const [i, text] of texts.slice(0, 4).entries()) {
      await fx.execSql(
        'INSERT INTO source_frames (run_id, native_seq, received_at, frame) VALUES (?, ?, ?, ?)',
        [runId, i + 1, at, text],
      );
    }
    await fx.execSql('UPDATE source_lanes SET max_native_seq = 4 WHERE run_id = ?', [runId]);
    const old = await store.readWatermark(runId);
    expect(old).toEqual({
      maxNativeSeq: 4,
      signature: signatureOf(texts.slice(0, 4), [2, 4]),
      sealed: false,
    });
    // Appended after the upgrade: the next frames carry their hash, the old rows still none.
    await store.appendFrames(
      runId,
      frames.slice(4).map((frame) => ({ receivedAt: at, frame })),
    );
    const mixed = await store.readWatermark(runId);
    expect(mixed).toEqual({ maxNativeSeq: 6, signature: signatureOf(texts, [2, 4]), sealed: false });
    expect((await store.readFrames(runId)).map((f) => f.frame)).toEqual(frames);
    await store.finalizeRun(runId, 'completed');
    const sealed = await store.sealSource(runId);
    expect(sealed).toEqual({ ...mixed, sealed: true });
    expect(await store.completeCanonicalization(runId, sealed)).toMatchObject({ runId, watermark: sealed });
  });

  test("the watermark's read returns no text of a hashed frame, and the signature is a function of it", async ({
    store,
    fx,
  }) => {
    const runId = await runWithFrames(store);
    const rows = await fx.querySql(SIGNED_FRAME_PAGE, [runId, 0, runId, 0, 5000, 4 * 1024 * 1024]);
    expect(rows.map((r) => [Number(r.native_seq), r.frame])).toEqual([
      [1, texts[0]],
      [2, null],
      [3, texts[2]],
      [4, null],
      [5, null],
      [6, texts[5]],
    ]);
    const textChars = rows.reduce((sum, r) => sum + (typeof r.frame === 'string' ? r.frame.length : 0), 0);
    expect(textChars).toBeLessThan(HASHED_FRAME_CHARS + 20);
    const hash = createHash('sha256');
    for (const r of rows)
      hash.update(
        r.frame_sha256 === null ? `${r.native_seq}\n${r.frame}\n` : `${r.native_seq}\n#${r.frame_sha256}\n`,
      );
    expect((await store.readWatermark(runId)).signature).toBe(`sha256-${hash.digest('hex')}`);
  });
}
