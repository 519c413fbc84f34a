import {
  BinaryOpAggregateChannel,
  ChannelSet,
  type CheckpointSaver,
  createPgSaver,
  createSqliteSaver,
  LastValueChannel,
  newCheckpointId,
} from '@agentlane/checkpoints';
import type { Checkpoint } from '@agentlane/contract';
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
    const checkpoint: Checkpoint = {
      id: newCheckpointId(),
      sessionId,
      stageId: 'post-turn',
      createdAt: new Date().toISOString(),
      schemaVersion: 1,
      channels: set.snapshot(),
      ...(parentId ? { parentCheckpointId: parentId } : {}),
    };
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
