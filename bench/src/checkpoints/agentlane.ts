import {
  BinaryOpAggregateChannel,
  ChannelSet,
  type CheckpointSaver,
  createPgSaver,
  createSqliteSaver,
  LastValueChannel,
} from '@agentlane/checkpoints';
import { postTurnCheckpoint } from '@agentlane/checkpoints/testing';
import Database from 'better-sqlite3';
import { SAMPLE_AT, type Timings, TURNS, turnWrites } from './workload';

/** The same session through agentlane's channels and saver; a second, cache-less saver measures cold reads. */
async function drive(
  saver: CheckpointSaver,
  cold: CheckpointSaver,
  bytes: () => Promise<number>,
): Promise<Timings> {
  const timings: Timings = { put: [], get: [], getCold: [], bytesAt: {} };
  const set = new ChannelSet({
    conversation: new BinaryOpAggregateChannel('append'),
    plan: new LastValueChannel(),
    versionVector: new BinaryOpAggregateChannel('vector_merge'),
    tokens: new BinaryOpAggregateChannel('sum'),
  });
  const sessionId = 'bench-session';
  let parentId: string | undefined;
  for (let turn = 1; turn <= TURNS; turn++) {
    const w = turnWrites(turn);
    set.step([
      { channel: 'conversation', value: w.message },
      { channel: 'plan', value: w.plan },
      { channel: 'versionVector', value: w.vectorEntry },
      { channel: 'tokens', value: w.tokens },
    ]);
    const checkpoint = postTurnCheckpoint(sessionId, set.snapshot(), parentId);
    const t0 = performance.now();
    await saver.put(checkpoint);
    const t1 = performance.now();
    const latest = await saver.getLatest(sessionId);
    const t2 = performance.now();
    const coldLatest = await cold.getLatest(sessionId);
    const t3 = performance.now();
    if (latest?.id !== checkpoint.id || coldLatest?.id !== checkpoint.id) {
      throw new Error('agentlane get-latest returned the wrong checkpoint');
    }
    timings.put.push(t1 - t0);
    timings.get.push(t2 - t1);
    timings.getCold?.push(t3 - t2);
    parentId = checkpoint.id;
    if ((SAMPLE_AT as readonly number[]).includes(turn)) timings.bytesAt[turn] = await bytes();
  }
  return timings;
}

export async function agentlaneSqlite(file: string, fileBytes: () => number): Promise<Timings> {
  const saver = createSqliteSaver({ database: file });
  const cold = createSqliteSaver({ database: file, cacheSize: 0 });
  try {
    return await drive(saver, cold, async () => fileBytes());
  } finally {
    await cold.close();
    await saver.close();
  }
}

/**
 * The same run on a handle with synchronous=NORMAL, which is what LangGraph's SQLite saver runs with
 * (better-sqlite3's WAL default): a like-for-like durability comparison. agentlane's own default is FULL.
 */
export async function agentlaneSqliteNormal(file: string): Promise<Timings> {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const saver = createSqliteSaver({ database: db });
  const cold = createSqliteSaver({ database: db, cacheSize: 0 });
  try {
    return await drive(saver, cold, async () => 0);
  } finally {
    await cold.close();
    await saver.close();
    db.close();
  }
}

export async function agentlanePg(
  url: string,
  schema: string,
  schemaBytes: () => Promise<number>,
): Promise<Timings> {
  const saver = await createPgSaver({ connection: url, schema });
  const cold = await createPgSaver({ connection: url, schema, cacheSize: 0 });
  try {
    return await drive(saver, cold, schemaBytes);
  } finally {
    await cold.close();
    await saver.close();
  }
}
