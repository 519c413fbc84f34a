import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDriver } from '@agentlane/adapter-builtin';
import { createDriver as createReplayDriver } from '@agentlane/adapter-replay';
import type { EngineDriver } from '@agentlane/engine-kit';
import { type ModelReply, startFakeModelServer } from '@agentlane/fake-model-server';
import { createLane, type Lane } from '@agentlane/lane';
import { createServer } from '@agentlane/server';
import { openStore, type Store } from '@agentlane/store';
import { protocolRoutes } from '../../src/index';

const recordingOf = (file: string) =>
  fileURLToPath(new URL(`../../../adapters/replay/recordings/${file}`, import.meta.url));
const recording = recordingOf('claude-agent-acp.wire.jsonl');

/** The Codex recording with every frame from the answer to its permission request on `delayMs` later. */
async function delayedAnswerTrace(dir: string, delayMs: number): Promise<string> {
  const lines = (await readFile(recordingOf('codex-acp.wire.jsonl'), 'utf8')).split('\n').filter(Boolean);
  let asked = false;
  let answered = false;
  const out = lines.map((line) => {
    const record = JSON.parse(line) as {
      t: number;
      msg: { method?: string; result?: { outcome?: unknown } };
    };
    if (record.msg.method === 'session/request_permission') asked = true;
    else if (asked && record.msg.result?.outcome !== undefined) answered = true;
    if (answered) record.t += delayMs;
    return JSON.stringify(record);
  });
  if (!answered) throw new Error('the Codex recording has no answered permission request');
  const file = join(dir, 'codex-delayed-answer.wire.jsonl');
  await writeFile(file, `${out.join('\n')}\n`);
  return file;
}

export interface Stack {
  /** e.g. http://127.0.0.1:1234/api/harness */
  api: string;
  store: Store;
  lane: Lane;
  engines: { get(name: string): EngineDriver | undefined; list(): EngineDriver[] };
  fake: { requests: unknown[] };
  stop(): Promise<void>;
}

/**
 * agentlane as `serve` composes it, with the protocol routes: SQLite in a temp folder, the built-in engine
 * (`builtin`) on the fake model server playing `script`, a replay of a recorded Claude Code session
 * (`replay`, as fast as possible) and one of a Codex session at its recorded pace (`replay-paced`).
 */
export async function startStack(
  script: ModelReply[],
  options: { db?: string; limits?: Parameters<typeof createServer>[0]['limits'] } = {},
): Promise<Stack> {
  const dir = await mkdtemp(join(tmpdir(), 'protocols-'));
  const fake = await startFakeModelServer({ script });
  const store = await openStore(options.db ?? join(dir, 'a.db'));
  const builtin = createDriver({
    name: 'builtin',
    api: 'openai-chat',
    model: 'fake-model',
    baseURL: `${fake.url}/v1`,
    apiKey: 'sk-test-not-a-secret',
    plan: false,
  });
  const replay = createReplayDriver({ trace: recording, provider: 'acp', speed: 0, name: 'replay' });
  // Codex at its recorded pace, its permission request answered by the recording 60 ms later (3 ms as
  // recorded): an approval someone else answers quickly.
  const paced = createReplayDriver({
    trace: await delayedAnswerTrace(dir, 60),
    provider: 'acp',
    speed: 1,
    name: 'replay-paced',
  });
  const drivers = [builtin, replay, paced];
  const lane = createLane({
    store,
    drivers,
    ownerId: `protocols-${process.pid}-${Date.now()}`,
    pollIntervalMs: 50,
    workDirFor: () => dir,
  });
  await lane.start();
  const server = await createServer({
    store,
    lane,
    engines: {
      get: (n) => drivers.find((d) => d.name === n),
      list: () => drivers,
    },
    defaultWorkDir: dir,
    routes: [protocolRoutes()],
    ...(options.limits ? { limits: options.limits } : {}),
  });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const address = server.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    api: `http://127.0.0.1:${port}/api/harness`,
    store,
    lane,
    engines: {
      get: (n) => drivers.find((d) => d.name === n),
      list: () => drivers,
    },
    fake: fake as unknown as { requests: unknown[] },
    async stop() {
      // A run still waiting on an answer would hold the lane's stop: cancel what is left first.
      for (const run of await store.listRunningRuns()) await lane.cancelRun(run.runId).catch(() => {});
      await server.shutdown().catch(() => {});
      await lane.stop().catch(() => {});
      await builtin.dispose();
      await store.close().catch(() => {});
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
