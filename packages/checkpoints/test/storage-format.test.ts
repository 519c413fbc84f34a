import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Checkpoint } from '@agentlane/contract';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BinaryOpAggregateChannel,
  ChannelSet,
  createSqliteSaver,
  fingerprintCheckpoint,
  LastValueChannel,
  newCheckpointId,
  TopicChannel,
} from '../src/index';

// Hydrates with nothing but the SQL and the steps written in docs/checkpoint-storage.md, as a client in
// another language would, to prove the document is enough.
type Snapshot = { kind: string; version: number; value: Record<string, unknown> };
type Row = {
  lvl: number;
  storage: string;
  channels: string;
  checkpoint_id: string;
  session_id: string;
  stage_id: string;
  created_at: string;
  schema_version: number;
  parent_checkpoint_id: string | null;
};

const CHAIN_SQL = `WITH RECURSIVE chain(lvl, checkpoint_id, parent_checkpoint_id, storage) AS (
  SELECT 0, checkpoint_id, parent_checkpoint_id, storage FROM harness_checkpoints
   WHERE session_id = :session AND checkpoint_id = :checkpoint
  UNION ALL
  SELECT chain.lvl + 1, p.checkpoint_id, p.parent_checkpoint_id, p.storage FROM harness_checkpoints p
    JOIN chain ON p.session_id = :session AND p.checkpoint_id = chain.parent_checkpoint_id
   WHERE chain.storage = 'delta'
)
SELECT chain.lvl, t.* FROM chain
  JOIN harness_checkpoints t ON t.session_id = :session AND t.checkpoint_id = chain.checkpoint_id
 ORDER BY chain.lvl`;

function hydrateByHand(db: Database.Database, session: string, checkpoint: string): Checkpoint {
  const rows = db.prepare(CHAIN_SQL).all({ session, checkpoint }) as Row[];
  const base = rows[rows.length - 1] as Row;
  expect(base.storage).toBe('full');
  const channels = JSON.parse(base.channels) as Record<string, Snapshot>;
  for (const row of rows.slice(0, -1).reverse()) {
    const delta = JSON.parse(row.channels) as Record<
      string,
      { op: string; snapshot?: Snapshot; version?: number; items?: unknown[] }
    >;
    for (const [name, op] of Object.entries(delta)) {
      if (op.op === 'put') channels[name] = op.snapshot as Snapshot;
      if (op.op === 'drop') delete channels[name];
      if (op.op === 'append') {
        const s = channels[name] as Snapshot;
        const list = (s.kind === 'topic' ? s.value.items : s.value.value) as unknown[];
        list.push(...(op.items ?? []));
        s.version = op.version as number;
      }
    }
  }
  const head = rows[0] as Row;
  return {
    id: head.checkpoint_id,
    sessionId: head.session_id,
    stageId: head.stage_id as Checkpoint['stageId'],
    createdAt: head.created_at,
    schemaVersion: head.schema_version,
    channels: channels as Checkpoint['channels'],
    ...(head.parent_checkpoint_id === null ? {} : { parentCheckpointId: head.parent_checkpoint_id }),
  };
}

describe('docs/checkpoint-storage.md', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-cp-format-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is enough to hydrate every checkpoint with plain SQL', async () => {
    const db = new Database(join(dir, 'format.db'));
    const saver = createSqliteSaver({ database: db, fullSnapshotEvery: 6 });
    const set = new ChannelSet({
      conversation: new BinaryOpAggregateChannel('append'),
      events: new TopicChannel(),
      plan: new LastValueChannel(),
    });
    const puts: Checkpoint[] = [];
    for (let turn = 1; turn <= 20; turn++) {
      set.step([
        { channel: 'conversation', value: { turn } },
        ...(turn % 3 ? [{ channel: 'events', value: turn }] : []),
        ...(turn % 4 ? [] : [{ channel: 'plan', value: [`p${turn}`] }]),
      ]);
      const last = puts[puts.length - 1];
      const cp: Checkpoint = {
        id: newCheckpointId(),
        sessionId: 'format-session',
        stageId: 'tool-loop',
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, turn)).toISOString(),
        schemaVersion: 1,
        channels: set.snapshot(),
        ...(last ? { parentCheckpointId: last.id } : {}),
      };
      await saver.put(cp);
      puts.push(cp);
    }
    for (const cp of puts) {
      const byHand = hydrateByHand(db, cp.sessionId, cp.id);
      expect(byHand).toEqual(cp);
      expect(fingerprintCheckpoint(byHand)).toBe(fingerprintCheckpoint(cp));
    }
    await saver.close();
    db.close();
  });
});
