import { type BuiltinDriverConfig, createDriver, type ModelApi } from '@agentlane/adapter-builtin';
import { createSqliteSaver, openCheckpointSaver } from '@agentlane/checkpoints';
import { SecretRedactor } from '@agentlane/engine-kit';
import { createLane } from '@agentlane/lane';
import { createSqliteLedger } from '@agentlane/ledger';
import { createServer } from '@agentlane/server';
import { openStore } from '@agentlane/store';
import { listenLocal } from './support/server';

export const PLANTED_KEY = 'sk-planted-secret-key-0123456789';

/** agentlane as serve composes it, plus the ledger and the checkpoint saver on the same SQLite file. */
export async function startBuiltinStack(options: {
  db: string;
  workDir: string;
  api: ModelApi;
  baseURL: string;
  /** Offer the task tool (sub-agents). */
  subagents?: boolean;
  /** The per-turn token budget of the tool loop. */
  turnTokenBudget?: number;
  /** The lane's approval timeout (default: the lane's). */
  approvalTimeoutMs?: number;
  /** More keys of the engine's config (output bounds, workspace tools, ...). */
  driverConfig?: Partial<BuiltinDriverConfig>;
}) {
  const store = await openStore(options.db);
  const ledger = createSqliteLedger({ database: options.db });
  const checkpoints = createSqliteSaver({ database: options.db });
  // The engine's own saver on the file, as serve gives it (never blocking the event loop on a busy lock).
  const engineCheckpoints = await openCheckpointSaver(options.db);
  const driver = createDriver({
    name: 'builtin',
    api: options.api,
    model: 'fake-model',
    baseURL: options.baseURL,
    apiKey: PLANTED_KEY,
    checkpoints: engineCheckpoints,
    ...(options.subagents ? { subagents: true } : {}),
    ...(options.turnTokenBudget ? { turnTokenBudget: options.turnTokenBudget } : {}),
    ...options.driverConfig,
  });
  const lines: string[] = [];
  const lane = createLane({
    store,
    drivers: [driver],
    ownerId: `e2e-${process.pid}-${Date.now()}`,
    pollIntervalMs: 50,
    ...(options.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: options.approvalTimeoutMs } : {}),
    workDirFor: () => options.workDir,
    audit: ledger,
    // As serve gives it (the server's redactor): the engine's key is kept out of stored frames by the lane too.
    redactor: new SecretRedactor([PLANTED_KEY]),
    log: (level, message, detail) => lines.push(`${level} ${message} ${JSON.stringify(detail ?? null)}`),
  });
  await lane.start();
  const server = await createServer({
    store,
    lane,
    checkpoints,
    audit: ledger,
    engines: { get: (n) => (n === driver.name ? driver : undefined), list: () => [driver] },
    defaultWorkDir: options.workDir,
  });
  const api = await listenLocal(server);
  return {
    api,
    lines,
    async stop() {
      await server.shutdown().catch(() => {});
      await lane.stop().catch(() => {});
      await driver.dispose();
      await engineCheckpoints.close();
      await checkpoints.close();
      await ledger.close();
      await store.close().catch(() => {});
    },
  };
}
