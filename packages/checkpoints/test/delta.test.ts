import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Checkpoint } from '@agentlane/contract';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BinaryOpAggregateChannel,
  ChannelSet,
  createMemorySaver,
  createSqliteSaver,
  DataChannel,
  EphemeralValueChannel,
  fingerprintCheckpoint,
  isCheckpointError,
  LastValueChannel,
  NamedBarrierChannel,
  TopicChannel,
} from '../src/index';

/** A deterministic ULID-shaped id (the contract requires ULIDs). */
const id = (n: number) => `01J0000000000000000${String(n).padStart(7, '0')}`;

function sessionChannels(): ChannelSet {
  return new ChannelSet({
    conversation: new BinaryOpAggregateChannel('append'),
    plan: new LastValueChannel(),
    versionVector: new BinaryOpAggregateChannel('vector_merge'),
    events: new TopicChannel(),
    scratch: new EphemeralValueChannel(),
    barrier: new NamedBarrierChannel(['a', 'b']),
    cache: new DataChannel(3),
  });
}

function envelope(set: ChannelSet, id: string, parent?: string): Checkpoint {
  return {
    id,
    sessionId: 'sess-delta',
    stageId: 'post-turn',
    createdAt: '2026-01-01T00:00:00.000Z',
    schemaVersion: 1,
    channels: set.snapshot(),
    ...(parent === undefined ? {} : { parentCheckpointId: parent }),
  };
}

describe('delta storage', () => {
  it('hydrating any checkpoint equals the state computed from scratch, for any K and any fork shape', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(1, 2, 3, 5, 8, Number.POSITIVE_INFINITY),
        fc.constantFrom(0, 4),
        fc.array(
          fc.record({
            text: fc.string({ maxLength: 12 }),
            plan: fc.boolean(),
            scratch: fc.boolean(),
            event: fc.boolean(),
            writer: fc.constantFrom('a', 'b', null),
            key: fc.constantFrom('k1', 'k2', 'k3', 'k4'),
            forkBack: fc.nat({ max: 6 }),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        async (k, cacheSize, turns) => {
          const saver = createMemorySaver({ fullSnapshotEvery: k, cacheSize });
          const set = sessionChannels();
          const ids: string[] = [];
          const expected = new Map<string, string>();
          for (const [i, turn] of turns.entries()) {
            set.step([
              { channel: 'conversation', value: { role: 'user', text: turn.text } },
              { channel: 'versionVector', value: { c: i + 1 } },
              { channel: 'cache', value: { key: turn.key, value: i } },
              ...(turn.plan ? [{ channel: 'plan', value: [i] }] : []),
              ...(turn.scratch ? [{ channel: 'scratch', value: turn.text }] : []),
              ...(turn.event ? [{ channel: 'events', value: i }] : []),
              ...(turn.writer ? [{ channel: 'barrier', value: turn.writer }] : []),
            ]);
            // Forks: the state keeps growing, but the parent may be an older checkpoint.
            const parent = ids.length === 0 ? undefined : ids[Math.max(0, ids.length - 1 - turn.forkBack)];
            const cp = envelope(set, id(i), parent);
            await saver.put(cp);
            ids.push(cp.id);
            expected.set(cp.id, fingerprintCheckpoint(cp));
          }
          for (const id of ids) {
            const got = await saver.get('sess-delta', id);
            expect(got && fingerprintCheckpoint(got)).toBe(expected.get(id));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('500 turns of one appended message each: bytes per delta turn do not grow with the session', async () => {
    const saver = createMemorySaver({ fullSnapshotEvery: Number.POSITIVE_INFINITY });
    const set = sessionChannels();
    const bytes: number[] = [];
    let parent: string | undefined;
    const text = 'x'.repeat(1000);
    for (let turn = 1; turn <= 500; turn++) {
      set.step([
        {
          channel: 'conversation',
          value: { id: `m${turn}`, role: 'assistant', parts: [{ type: 'text', text }] },
        },
        { channel: 'versionVector', value: { server: turn } },
        { channel: 'plan', value: [{ content: `step ${turn}`, status: 'in_progress' }] },
      ]);
      const cp = envelope(set, id(turn), parent);
      const result = await saver.put(cp);
      bytes.push(result.bytes);
      parent = cp.id;
    }
    const turn10 = bytes[9] as number;
    const turn500 = bytes[499] as number;
    console.log(
      `bytes written: turn 10 = ${turn10}, turn 500 = ${turn500}, full state at 500 ≈ ${JSON.stringify(set.snapshot()).length}`,
    );
    expect(turn500).toBeLessThanOrEqual(turn10 * 1.1);
    expect(Math.max(...bytes.slice(1))).toBeLessThan(2 * turn10);
    const latest = await saver.getLatest('sess-delta');
    expect(latest && fingerprintCheckpoint(latest)).toBe(fingerprintCheckpoint({ channels: set.snapshot() }));
  });

  it('with a full snapshot every K, only every K-th turn pays for the whole state', async () => {
    const saver = createMemorySaver({ fullSnapshotEvery: 50 });
    const set = sessionChannels();
    const storage: string[] = [];
    const bytes: number[] = [];
    let parent: string | undefined;
    for (let turn = 1; turn <= 200; turn++) {
      set.step([{ channel: 'conversation', value: { text: 'y'.repeat(1000) } }]);
      const cp = envelope(set, id(turn), parent);
      const result = await saver.put(cp);
      storage.push(result.storage);
      bytes.push(result.bytes);
      parent = cp.id;
    }
    expect(storage.filter((s) => s === 'full')).toHaveLength(4);
    expect(storage[50]).toBe('full');
    const deltaBytes = bytes.filter((_, i) => storage[i] === 'delta');
    expect(Math.max(...deltaBytes)).toBeLessThan(2 * Math.min(...deltaBytes));
    // Amortised over the run: far below storing every state in full (what LangGraph's savers do).
    const everyFull = bytes.reduce((sum, _b, i) => sum + 1000 * (i + 1), 0);
    expect(bytes.reduce((a, b) => a + b, 0)).toBeLessThan(everyFull / 10);
  });
});

describe('corrupted rows (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-cp-corrupt-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function seeded(file: string) {
    const db = new Database(join(dir, file));
    const saver = createSqliteSaver({ database: db, fullSnapshotEvery: 4, cacheSize: 0 });
    const set = sessionChannels();
    let parent: string | undefined;
    for (let turn = 1; turn <= 6; turn++) {
      set.step([{ channel: 'conversation', value: turn }]);
      const cp = envelope(set, id(turn), parent);
      await saver.put(cp);
      parent = cp.id;
    }
    return { db, saver };
  }

  async function corruptError(action: () => Promise<unknown>) {
    try {
      await action();
    } catch (error) {
      if (isCheckpointError(error, 'corrupt_row')) return error;
      throw error;
    }
    throw new Error('expected corrupt_row');
  }

  it('a payload that is not JSON is reported with the checkpoint id; other rows still read', async () => {
    const { db, saver } = await seeded('a.db');
    db.prepare(
      `UPDATE harness_checkpoints SET channels = '{not json' WHERE checkpoint_id = '${id(2)}'`,
    ).run();
    const error = await corruptError(() => saver.get('sess-delta', id(3)));
    expect(error.checkpointId).toBe(id(2));
    expect(error.message).toContain(id(2));
    expect(await saver.get('sess-delta', id(5))).toBeDefined();
    expect((await saver.list({ sessionId: 'sess-delta' })).items).toHaveLength(6);
    await saver.close();
    db.close();
  });

  it('a loop of parent links is reported, not walked forever', async () => {
    const { db, saver } = await seeded('loop.db');
    db.exec(`UPDATE harness_checkpoints SET storage = 'delta', parent_checkpoint_id = '${id(3)}'
      WHERE checkpoint_id = '${id(1)}'; DELETE FROM harness_checkpoint_heads`);
    // Before: the recursive chain query never ended (the process hung, memory grew without bound).
    const error = await corruptError(() => saver.get('sess-delta', id(3)));
    expect(error.message).toMatch(/^checkpoint 01J0/);
    expect(await saver.get('sess-delta', id(6))).toBeDefined();
    await saver.close();
    db.close();
  });

  it.each([
    [
      'a delta of the wrong shape',
      `UPDATE harness_checkpoints SET channels = '{"conversation":{"op":"teleport"}}' WHERE checkpoint_id = '${id(2)}'`,
      id(3),
      id(2),
    ],
    [
      'a bad channel value in a delta',
      `UPDATE harness_checkpoints SET channels = '{"plan":{"op":"put","snapshot":{"kind":"last_value","version":1,"value":7}}}' WHERE checkpoint_id = '${id(3)}'`,
      id(3),
      id(3),
    ],
    [
      'a bad channel in a full row',
      `UPDATE harness_checkpoints SET channels = '{"x":{"kind":"nope","version":1,"value":1}}' WHERE checkpoint_id = '${id(1)}'`,
      id(2),
      id(1),
    ],
    [
      'a stage that is not a stage',
      `UPDATE harness_checkpoints SET stage_id = 'nap' WHERE checkpoint_id = '${id(5)}'`,
      id(5),
      id(5),
    ],
    ['a broken chain', `DELETE FROM harness_checkpoints WHERE checkpoint_id = '${id(1)}'`, id(2), id(2)],
    // Before: the channel went into the prototype of the state's map and vanished without an error.
    [
      'a channel named __proto__ in a delta',
      `UPDATE harness_checkpoints SET channels = '{"__proto__":{"op":"put","snapshot":{"kind":"last_value","version":9,"value":{}}}}' WHERE checkpoint_id = '${id(2)}'`,
      id(2),
      id(2),
    ],
    // Before: hydrated as if the writers (which refuse version_regression) could have written it.
    [
      'a version going back in a delta',
      `UPDATE harness_checkpoints SET channels = '{"conversation":{"op":"append","version":0,"items":[9]}}' WHERE checkpoint_id = '${id(3)}'`,
      id(3),
      id(3),
    ],
    // The contract's schemaVersion is at least 1.
    [
      'a schema_version of 0',
      `UPDATE harness_checkpoints SET schema_version = 0 WHERE checkpoint_id = '${id(5)}'`,
      id(5),
      id(5),
    ],
  ])('%s is reported with the checkpoint id', async (name, sql, read, culprit) => {
    const { db, saver } = await seeded(`${name.replaceAll(' ', '-')}.db`);
    db.prepare(sql).run();
    const error = await corruptError(() => saver.get('sess-delta', read));
    expect(error.checkpointId).toBe(culprit);
    expect(error.message).toContain(culprit);
    await saver.close();
    db.close();
  });
});
