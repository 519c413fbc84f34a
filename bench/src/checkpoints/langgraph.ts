import Database from 'better-sqlite3';
import {
  type LangGraph,
  type LangGraphCheckpoint,
  type LangGraphSaver,
  loadLangGraph,
} from './langgraph-baseline';
import { SAMPLE_AT, type Timings, TURNS, turnWrites } from './workload';

/** Drives a LangGraph saver the way a LangGraph graph does: one full checkpoint per step. */
async function drive(
  langgraph: LangGraph,
  saver: LangGraphSaver,
  threadId: string,
  bytes: () => Promise<number>,
): Promise<Timings> {
  const timings: Timings = { put: [], get: [], bytesAt: {} };
  const messages: unknown[] = [];
  let vector: Record<string, number> = {};
  let tokens = 0;
  let plan: unknown = null;
  let parentId: string | undefined;
  for (let turn = 1; turn <= TURNS; turn++) {
    const w = turnWrites(turn);
    messages.push(w.message);
    vector = { ...vector, ...w.vectorEntry };
    tokens += w.tokens;
    plan = w.plan;
    const checkpoint: LangGraphCheckpoint = {
      ...langgraph.emptyCheckpoint(),
      id: langgraph.uuid6(-1),
      ts: new Date().toISOString(),
      channel_values: { messages: [...messages], plan, versionVector: vector, tokens },
      channel_versions: { messages: turn, plan: turn, versionVector: turn, tokens: turn },
      versions_seen: {},
    };
    const config = {
      configurable: {
        thread_id: threadId,
        checkpoint_ns: '',
        ...(parentId ? { checkpoint_id: parentId } : {}),
      },
    };
    const t0 = performance.now();
    await saver.put(
      config,
      checkpoint,
      { source: 'loop', step: turn, parents: {} },
      {
        messages: turn,
        plan: turn,
        versionVector: turn,
        tokens: turn,
      },
    );
    const t1 = performance.now();
    const tuple = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '' } });
    const t2 = performance.now();
    if (tuple?.checkpoint.id !== checkpoint.id)
      throw new Error('langgraph get-latest returned the wrong checkpoint');
    timings.put.push(t1 - t0);
    timings.get.push(t2 - t1);
    parentId = checkpoint.id;
    if ((SAMPLE_AT as readonly number[]).includes(turn)) timings.bytesAt[turn] = await bytes();
  }
  return timings;
}

export async function langgraphSqlite(file: string, fileBytes: () => number): Promise<Timings> {
  // What SqliteSaver.fromConnString does, with the project's driver (its setup turns WAL on).
  const db = new Database(file);
  try {
    const langgraph = loadLangGraph();
    return await drive(langgraph, langgraph.sqliteSaver(db), 'bench-thread', async () => fileBytes());
  } finally {
    db.close();
  }
}

export async function langgraphPg(
  url: string,
  schema: string,
  schemaBytes: () => Promise<number>,
): Promise<Timings> {
  const langgraph = loadLangGraph();
  const saver = langgraph.pgSaver(url, schema);
  await saver.setup();
  try {
    return await drive(langgraph, saver, 'bench-thread', schemaBytes);
  } finally {
    await saver.end();
  }
}
