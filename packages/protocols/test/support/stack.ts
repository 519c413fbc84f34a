import { mkdtemp, rm } from 'node:fs/promises';
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

const recording = fileURLToPath(
  new URL('../../../adapters/replay/recordings/claude-agent-acp.wire.jsonl', import.meta.url),
);

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
 * (`builtin`) on the fake model server playing `script`, and a replay of a recorded Claude Code session
 * (`replay`, as fast as possible).
 */
export async function startStack(script: ModelReply[], options: { db?: string } = {}): Promise<Stack> {
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
  const lane = createLane({
    store,
    drivers: [builtin, replay],
    ownerId: `protocols-${process.pid}-${Date.now()}`,
    pollIntervalMs: 50,
    workDirFor: () => dir,
  });
  await lane.start();
  const server = await createServer({
    store,
    lane,
    engines: {
      get: (n) => [builtin, replay].find((d) => d.name === n),
      list: () => [builtin, replay],
    },
    defaultWorkDir: dir,
    routes: [protocolRoutes()],
  });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const address = server.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    api: `http://127.0.0.1:${port}/api/harness`,
    store,
    lane,
    engines: {
      get: (n) => [builtin, replay].find((d) => d.name === n),
      list: () => [builtin, replay],
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
