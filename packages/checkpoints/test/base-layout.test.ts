import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelSnapshot, Checkpoint } from '@agentlane/contract';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BinaryOpAggregateChannel,
  ChannelSet,
  createSqliteSaver,
  fingerprintCheckpoint,
  TopicChannel,
} from '../src/index';
import { parseWithLayout, stringifyFull } from '../src/savers/base-layout';

const dir = mkdtempSync(join(tmpdir(), 'agentlane-cp-layout-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A message of ~1 KB with non-ASCII text, so byte and character offsets differ. */
const message = (n: number) => ({ id: `m${n}`, text: `é ${'word '.repeat(200)} ${n} “quoted”` });

function big(items: number): Record<string, ChannelSnapshot> {
  const set = new ChannelSet({
    conversation: new BinaryOpAggregateChannel('append'),
    events: new TopicChannel({ accumulate: true }),
    tokens: new BinaryOpAggregateChannel('sum'),
  });
  for (let n = 0; n < items; n++) {
    set.step([
      { channel: 'conversation', value: message(n) },
      { channel: 'events', value: { n } },
      { channel: 'tokens', value: 3 },
    ]);
  }
  return set.snapshot();
}

describe('base layout (a full row parsed in pieces)', () => {
  it('writes the text JSON.stringify gives, and parses back to the same value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), (items) => {
        const channels = big(items);
        const { text, layout } = stringifyFull(channels);
        expect(text).toBe(JSON.stringify(channels));
        // Only lists past the chunk size (64 KiB: about 63 of these messages) get a layout.
        if (items < 55) expect(layout).toBeUndefined();
        if (items > 70) expect(layout).toBeDefined();
        if (layout) expect(parseWithLayout(Buffer.from(text), layout)).toEqual(JSON.parse(text));
      }),
      { numRuns: 15 },
    );
  });

  it('parses pieces of plain ASCII (decoded as latin1) next to pieces with other characters (UTF-8)', () => {
    // Runs of 80 ASCII-only messages then 80 with non-ASCII text: some 64 KiB pieces hold only one kind.
    const ascii = (n: number) => ({ id: `a${n}`, text: `${'plain '.repeat(170)} ${n} "quoted" \\ /` });
    const set = new ChannelSet({ conversation: new BinaryOpAggregateChannel('append') });
    for (let n = 0; n < 400; n++)
      set.step([{ channel: 'conversation', value: Math.floor(n / 80) % 2 ? message(n) : ascii(n) }]);
    const channels = set.snapshot();
    const { text, layout } = stringifyFull(channels);
    const bytes = Buffer.from(text);
    const { lists } = JSON.parse(layout as string) as { lists: { start: number; cuts: number[] }[] };
    const pieces = [lists[0]?.start ?? 0, ...(lists[0]?.cuts ?? [])];
    const asciiPieces = pieces.filter((at, i) =>
      bytes.subarray(at, pieces[i + 1] ?? bytes.length).every((b) => b < 0x80),
    );
    expect(asciiPieces.length).toBeGreaterThan(0);
    expect(asciiPieces.length).toBeLessThan(pieces.length);
    expect(parseWithLayout(bytes, layout as string)).toEqual(channels);
  });

  it('parses a piece larger than the shared framing buffer, and smaller rows after it', () => {
    // One 2 MiB item makes a piece over the 1 MiB the shared buffer takes; the rows after it reuse the
    // buffer with less in it than it held.
    const set = new ChannelSet({ conversation: new BinaryOpAggregateChannel('append') });
    for (let n = 0; n < 80; n++) set.step([{ channel: 'conversation', value: message(n) }]);
    set.step([{ channel: 'conversation', value: { id: 'huge', text: 'x'.repeat(2 * 1024 * 1024) } }]);
    const withHuge = set.snapshot();
    const rows = [withHuge, big(300), big(90), withHuge, big(120)];
    for (const channels of rows) {
      const { text, layout } = stringifyFull(channels);
      expect(parseWithLayout(Buffer.from(text), layout as string)).toEqual(channels);
    }
  });

  it('a layout that does not fit the bytes is ignored (the caller parses the whole text)', () => {
    const { text, layout } = stringifyFull(big(300));
    const bytes = Buffer.from(text);
    const parsed = JSON.parse(layout as string);
    const shifted = { ...parsed, lists: [{ ...parsed.lists[0], start: parsed.lists[0].start + 1 }] };
    const badCut = { ...parsed, lists: [{ ...parsed.lists[0], cuts: [parsed.lists[0].cuts[0] + 3] }] };
    expect(parseWithLayout(bytes, JSON.stringify(shifted))).toBeUndefined();
    expect(parseWithLayout(bytes, JSON.stringify(badCut))).toBeUndefined();
    expect(parseWithLayout(bytes, JSON.stringify({ ...parsed, bytes: bytes.length + 1 }))).toBeUndefined();
    expect(parseWithLayout(bytes, 'not json')).toBeUndefined();
    expect(parseWithLayout(Buffer.from(`${text} `), layout as string)).toBeUndefined();
  });

  it('a cold get-latest reads the head base through its layout, kept while the base stays, and past a bad one', async () => {
    const db = new Database(join(dir, 'layout.db'));
    const saver = createSqliteSaver({ database: db, fullSnapshotEvery: 3 });
    const cold = createSqliteSaver({ database: db, cacheSize: 0 });
    const layoutOf = () =>
      (db.prepare('SELECT base_layout FROM harness_checkpoint_heads').pluck().get() as string | null) ?? null;
    const set = ChannelSet.restore(big(150));
    let parent: string | undefined;
    const layouts: (string | null)[] = [];
    for (let n = 1; n <= 4; n++) {
      set.step([{ channel: 'conversation', value: message(1000 + n) }]);
      const cp: Checkpoint = {
        id: `01J0000000000000000${String(n).padStart(7, '0')}`,
        sessionId: 's',
        stageId: 'post-turn',
        createdAt: '2026-01-01T00:00:00.000Z',
        schemaVersion: 1,
        channels: set.snapshot(),
        ...(parent ? { parentCheckpointId: parent } : {}),
      };
      await saver.put(cp);
      parent = cp.id;
      layouts.push(layoutOf());
      expect(fingerprintCheckpoint((await cold.getLatest('s')) as Checkpoint)).toBe(
        fingerprintCheckpoint(cp),
      );
      if (n === 2) {
        // A layout that no longer fits its base: the base is read whole, the state is the same.
        db.prepare('UPDATE harness_checkpoint_heads SET base_layout = ?').run('{"bytes":1,"lists":[]}');
        expect(fingerprintCheckpoint((await cold.getLatest('s')) as Checkpoint)).toBe(
          fingerprintCheckpoint(cp),
        );
      }
    }
    // Row 1 is full (a layout), row 2 keeps it, row 3 keeps the broken one, row 4 is full again (a new one).
    expect(layouts[0]).not.toBeNull();
    expect(layouts[1]).toBe(layouts[0]);
    expect(layouts[2]).toBe('{"bytes":1,"lists":[]}');
    expect(layouts[3]).not.toBeNull();
    expect(layouts[3]).not.toBe(layouts[2]);
    // Read through the layout, the channels' shape checks still run: a bad reducer (same length, so the
    // layout still fits) is a corrupt row.
    db.prepare(
      `UPDATE harness_checkpoints SET channels = replace(channels, '"reducer":"sum"', '"reducer":"sux"')
       WHERE storage = 'full'`,
    ).run();
    await expect(cold.getLatest('s')).rejects.toMatchObject({ code: 'corrupt_row' });
    await cold.close();
    await saver.close();
    db.close();
  });
});
