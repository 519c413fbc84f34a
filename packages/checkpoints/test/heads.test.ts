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
  type CheckpointSaver,
  createSqliteSaver,
  fingerprintCheckpoint,
  LastValueChannel,
  TopicChannel,
} from '../src/index';

const id = (n: number) => `01J0000000000000000${String(n).padStart(7, '0')}`;
const dir = mkdtempSync(join(tmpdir(), 'agentlane-cp-heads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function channels(): ChannelSet {
  return new ChannelSet({
    conversation: new BinaryOpAggregateChannel('append'),
    plan: new LastValueChannel(),
    events: new TopicChannel(),
  });
}

function envelope(set: ChannelSet, n: number, parent?: string): Checkpoint {
  return {
    id: id(n),
    sessionId: 'sess-heads',
    stageId: 'post-turn',
    createdAt: '2026-01-01T00:00:00.000Z',
    schemaVersion: 1,
    channels: set.snapshot(),
    ...(parent === undefined ? {} : { parentCheckpointId: parent }),
  };
}

function head(db: Database.Database) {
  return db.prepare("SELECT * FROM harness_checkpoint_heads WHERE session_id = 'sess-heads'").get() as
    | { checkpoint_id: string; base_checkpoint_id: string; since_base: string }
    | undefined;
}

/** A cold reader's latest checkpoint fingerprints as `expected` does. */
async function expectColdLatest(cold: CheckpointSaver, expected: Checkpoint): Promise<void> {
  const latest = (await cold.getLatest('sess-heads')) as Checkpoint;
  expect(fingerprintCheckpoint(latest)).toBe(fingerprintCheckpoint(expected));
}

describe('materialized heads (SQLite)', () => {
  it("a cold get-latest from the head equals the hydrated chain and the writer's cached state, for any K, forks and channel changes", async () => {
    let file = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(1, 3, 7),
        fc.array(
          fc.record({
            text: fc.string({ maxLength: 8 }),
            plan: fc.boolean(),
            event: fc.boolean(),
            fork: fc.nat(5),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (k, steps) => {
          const db = new Database(join(dir, `p${file++}.db`));
          const saver = createSqliteSaver({ database: db, fullSnapshotEvery: k });
          const cold = createSqliteSaver({ database: db, cacheSize: 0 });
          // One ChannelSet per checkpoint, so a fork continues from its parent's state.
          const states: ChannelSet[] = [];
          for (const [i, step] of steps.entries()) {
            const from = i === 0 ? undefined : Math.max(0, i - 1 - step.fork);
            const set =
              from === undefined ? channels() : ChannelSet.restore((states[from] as ChannelSet).snapshot());
            set.step([
              { channel: 'conversation', value: step.text },
              ...(step.plan ? [{ channel: 'plan', value: [step.text] }] : []),
              ...(step.event ? [{ channel: 'events', value: i }] : []),
            ]);
            states.push(set);
            const cp = envelope(set, i + 1, from === undefined ? undefined : id(from + 1));
            await saver.put(cp);
            const latest = await cold.getLatest('sess-heads');
            expect(latest?.id).toBe(cp.id);
            expect(head(db)?.checkpoint_id).toBe(cp.id);
            expect(fingerprintCheckpoint(latest as Checkpoint)).toBe(fingerprintCheckpoint(cp));
            expect(latest).toEqual(await cold.get('sess-heads', cp.id));
            // The writer's cached state (built from its parent's and the delta, full rows too) is the same
            // text as the cold read of the stored rows, key order included.
            expect(JSON.stringify(await saver.getLatest('sess-heads'))).toBe(JSON.stringify(latest));
          }
          await cold.close();
          await saver.close();
          db.close();
        },
      ),
      { numRuns: 12 },
    );
  });

  it('a row written without a head (another runtime) is still the latest: the stale head is passed over', async () => {
    const db = new Database(join(dir, 'foreign.db'));
    const saver = createSqliteSaver({ database: db, fullSnapshotEvery: 50 });
    const set = channels();
    set.step([{ channel: 'conversation', value: 'one' }]);
    await saver.put(envelope(set, 1));
    set.step([{ channel: 'conversation', value: 'two' }]);
    await saver.put(envelope(set, 2, id(1)));
    expect(head(db)?.checkpoint_id).toBe(id(2));
    // What the Python runtime's put writes: a delta row, and no head.
    db.prepare(
      `INSERT INTO harness_checkpoints (session_id, checkpoint_id, namespace, parent_checkpoint_id, stage_id,
         created_at, schema_version, storage, base_distance, channels)
       VALUES ('sess-heads', ?, '', ?, 'post-turn', '2026-01-01T00:00:00.000Z', 1, 'delta', 2, ?)`,
    ).run(id(3), id(2), JSON.stringify({ conversation: { op: 'append', version: 3, items: ['three'] } }));
    const cold = createSqliteSaver({ database: db, cacheSize: 0 });
    const latest = await cold.getLatest('sess-heads');
    expect(latest?.id).toBe(id(3));
    set.step([{ channel: 'conversation', value: 'three' }]);
    expect(fingerprintCheckpoint(latest as Checkpoint)).toBe(fingerprintCheckpoint(envelope(set, 3, id(2))));
    await cold.close();
    await saver.close();
    db.close();
  });

  it('prune drops the head with the rows; the next put writes it again on the rebased base', async () => {
    const db = new Database(join(dir, 'prune.db'));
    const saver = createSqliteSaver({ database: db, fullSnapshotEvery: 50 });
    const set = channels();
    let parent: string | undefined;
    for (let n = 1; n <= 6; n++) {
      set.step([{ channel: 'conversation', value: `turn ${n}` }]);
      await saver.put(envelope(set, n, parent));
      parent = id(n);
    }
    expect(head(db)).toMatchObject({ checkpoint_id: id(6), base_checkpoint_id: id(1) });
    await saver.prune({ sessionId: 'sess-heads', keepNewest: 2 });
    expect(head(db)).toBeUndefined();
    const cold = createSqliteSaver({ database: db, cacheSize: 0 });
    expect(fingerprintCheckpoint((await cold.getLatest('sess-heads')) as Checkpoint)).toBe(
      fingerprintCheckpoint(envelope(set, 6, id(5))),
    );
    set.step([{ channel: 'conversation', value: 'turn 7' }]);
    await saver.put(envelope(set, 7, id(6)));
    expect(head(db)).toMatchObject({ checkpoint_id: id(7), base_checkpoint_id: id(5) });
    expect(fingerprintCheckpoint((await cold.getLatest('sess-heads')) as Checkpoint)).toBe(
      fingerprintCheckpoint(envelope(set, 7, id(6))),
    );
    await saver.deleteSession('sess-heads');
    expect(head(db)).toBeUndefined();
    await cold.close();
    await saver.close();
    db.close();
  });

  it('past headMaxBytes the namespace keeps no head (no second copy of a long answer) until its next full row', async () => {
    const db = new Database(join(dir, 'large.db'));
    const saver = createSqliteSaver({ database: db, fullSnapshotEvery: 4, headMaxBytes: 1000 });
    const set = channels();
    set.step([{ channel: 'conversation', value: 'short' }]);
    await saver.put(envelope(set, 1));
    set.step([{ channel: 'conversation', value: 'x'.repeat(2000) }]);
    await saver.put(envelope(set, 2, id(1)));
    expect(head(db)).toBeUndefined();
    set.step([{ channel: 'plan', value: 'p' }]);
    await saver.put(envelope(set, 3, id(2)));
    expect(head(db)).toBeUndefined();
    const cold = createSqliteSaver({ database: db, cacheSize: 0 });
    await expectColdLatest(cold, envelope(set, 3, id(2)));
    set.step([{ channel: 'conversation', value: 'again' }]);
    await saver.put(envelope(set, 4, id(3)));
    set.step([{ channel: 'conversation', value: 'a full row next' }]);
    await saver.put(envelope(set, 5, id(4)));
    expect(head(db)).toMatchObject({ checkpoint_id: id(5), base_checkpoint_id: id(5), since_base: '{}' });
    await cold.close();
    await saver.close();
    db.close();
  });
});
