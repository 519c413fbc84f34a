import type { Checkpoint } from '@agentlane/contract';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BinaryOpAggregateChannel,
  ChannelSet,
  createPgSaver,
  type DeltaCheckpointSaver,
  fingerprintCheckpoint,
  isCheckpointError,
  newCheckpointId,
} from '../src/index';

const url = process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `cp_race_${Math.random().toString(36).slice(2, 10)}`;

async function reachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const down = await reachable();
if (down !== undefined && process.env.CI === 'true')
  throw new Error(`PostgreSQL unreachable at ${url} (CI=true): ${down}`);
if (down !== undefined)
  console.log(`[checkpoints] PostgreSQL race test skipped: unreachable at ${url}: ${down}`);

describe.skipIf(down !== undefined)('PostgreSQL: prune racing with puts from another process', () => {
  let writer: DeltaCheckpointSaver;
  let pruner: DeltaCheckpointSaver;

  beforeAll(async () => {
    writer = await createPgSaver({ connection: url, schema, fullSnapshotEvery: 4 });
    pruner = await createPgSaver({ connection: url, schema, cacheSize: 0 });
  });

  afterAll(async () => {
    await writer?.close();
    await pruner?.close();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it('never leaves a kept checkpoint unhydratable', async () => {
    const set = new ChannelSet({ conversation: new BinaryOpAggregateChannel('append') });
    const expected = new Map<string, string>();
    let done = false;
    const prunes = (async () => {
      let rounds = 0;
      while (!done) {
        try {
          await pruner.prune({ sessionId: 'race', keepNewest: 3 });
        } catch (error) {
          // Losing the race five times in a row is a refusal, not corruption.
          if (!isCheckpointError(error, 'invalid_argument')) throw error;
        }
        rounds++;
      }
      return rounds;
    })();
    let parent: string | undefined;
    for (let turn = 1; turn <= 40; turn++) {
      set.step([{ channel: 'conversation', value: { turn } }]);
      const cp: Checkpoint = {
        id: newCheckpointId(),
        sessionId: 'race',
        stageId: 'tool-loop',
        createdAt: new Date().toISOString(),
        schemaVersion: 1,
        channels: set.snapshot(),
        ...(parent ? { parentCheckpointId: parent } : {}),
      };
      await writer.put(cp);
      expected.set(cp.id, fingerprintCheckpoint(cp));
      parent = cp.id;
    }
    done = true;
    expect(await prunes).toBeGreaterThan(0);
    const reader = await createPgSaver({ connection: url, schema, cacheSize: 0 });
    try {
      const page = await reader.list({ sessionId: 'race', limit: 1000 });
      expect(page.items.length).toBeGreaterThanOrEqual(3);
      for (const summary of page.items) {
        const got = await reader.get('race', summary.checkpointId);
        expect(got && fingerprintCheckpoint(got)).toBe(expected.get(summary.checkpointId));
      }
      expect((await reader.getLatest('race'))?.id).toBe(parent);
    } finally {
      await reader.close();
    }
  }, 120_000);
});
