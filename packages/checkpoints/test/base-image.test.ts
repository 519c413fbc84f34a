import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import type { Checkpoint } from '@agentlane/contract';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteSaver, fingerprintCheckpoint } from '../src/index';
import { putTurns } from '../src/testing/index';

const dir = mkdtempSync(join(tmpdir(), 'agentlane-cp-image-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A saver writing full rows every 3 puts, a cold reader, and `n` checkpoints of a growing conversation. */
async function session(name: string, n: number) {
  const db = new Database(join(dir, `${name}.db`));
  const saver = createSqliteSaver({ database: db, fullSnapshotEvery: 3 });
  const cold = createSqliteSaver({ database: db, cacheSize: 0 });
  const puts = await putTurns(saver, 's', n, (i) => ({
    id: `m${i}`,
    text: `é ${'word '.repeat(50)}${i}`,
    n: -0,
  }));
  const images = () =>
    db.prepare('SELECT session_id, namespace, checkpoint_id FROM harness_checkpoint_base_images').all();
  const setImage = (bytes: Buffer) =>
    db.prepare('UPDATE harness_checkpoint_base_images SET image = ?').run(bytes);
  const close = async () => {
    await cold.close();
    await saver.close();
    db.close();
  };
  return { db, saver, cold, puts, images, setImage, close };
}

const print = (cp: Checkpoint | undefined) => fingerprintCheckpoint(cp as Checkpoint);

describe("a head base's V8 image (SQLite)", () => {
  it('is written with each full row, one per namespace, and a cold read from it equals the record', async () => {
    const s = await session('written', 5);
    // Rows 1 and 4 are full: the image is row 4's, the head row 5 is its delta.
    expect(s.images()).toEqual([{ session_id: 's', namespace: '', checkpoint_id: s.puts[3]?.id }]);
    expect(print(await s.cold.getLatest('s'))).toBe(print(s.puts[4]));
    await s.close();
  });

  it('is what a cold read uses: a same-length edit of the JSON row is not seen while the image is there', async () => {
    // The image is a cache of an append-only row; this shows it is read instead of the row's text.
    const s = await session('used', 4);
    s.db
      .prepare(
        `UPDATE harness_checkpoints SET channels = replace(channels, '"reducer":"append"', '"reducer":"appenx"')`,
      )
      .run();
    expect(print(await s.cold.getLatest('s'))).toBe(print(s.puts[3]));
    s.db.prepare('DELETE FROM harness_checkpoint_base_images').run();
    await expect(s.cold.getLatest('s')).rejects.toMatchObject({ code: 'corrupt_row' });
    await s.close();
  });

  it('an image that cannot be read, or holds what JSON cannot, is passed over for the JSON row', async () => {
    const s = await session('bad', 5);
    const want = print(s.puts[4]);
    const good = s.db.prepare('SELECT image FROM harness_checkpoint_base_images').pluck().get() as Buffer;
    const holey = [1, 2, 3];
    delete holey[1];
    const bad = [
      Buffer.from('not an image'),
      good.subarray(0, good.length - 10),
      serialize({ conversation: new Map([['a', 1]]) }),
      serialize({
        tokens: { kind: 'binary_op_aggregate', version: 1, value: { reducer: 'sum', value: new Date(0) } },
      }),
      serialize({
        conversation: { kind: 'binary_op_aggregate', version: 1, value: { reducer: 'append', value: holey } },
      }),
      serialize([1, 2]),
    ];
    for (const bytes of bad) {
      s.setImage(bytes);
      expect(print(await s.cold.getLatest('s'))).toBe(want);
    }
    await s.close();
  });

  it('goes with its head: prune and session delete remove it', async () => {
    const s = await session('pruned', 5);
    await s.saver.prune({ sessionId: 's', keepNewest: 2 });
    expect(s.images()).toEqual([]);
    expect(print(await s.cold.getLatest('s'))).toBe(print(s.puts[4]));
    await s.saver.put({
      ...(s.puts[4] as Checkpoint),
      id: '01J00000000000000000000006',
      parentCheckpointId: s.puts[4]?.id,
    });
    await s.saver.deleteSession('s');
    expect(s.images()).toEqual([]);
    await s.close();
  });
});
