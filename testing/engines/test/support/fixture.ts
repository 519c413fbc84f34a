import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineDriver } from '@agentlane/engine-kit';
import { type FakeModelServer, startFakeModelServer } from '@agentlane/fake-model-server';
import { createSqliteLedger } from '@agentlane/ledger';
import { startStack } from '../opencode-stack';

export interface Fixture {
  fake: FakeModelServer;
  /** agentlane's state: its database, the engines' homes. */
  dir: string;
  /** The sessions' working directory. */
  work: string;
  /** Closes the fake model server and removes both folders. */
  close(): Promise<void>;
}

/** A fake model server and two fresh temporary folders, `${prefix}-…` and `${prefix}-work-…`. */
/**
 * An engine that was just stopped can still write into its home for a moment (Qwen Code's .qwen): rm then
 * fails with ENOTEMPTY, which Node retries with these options.
 */
export const REMOVE_OPTIONS = { recursive: true, force: true, maxRetries: 10, retryDelay: 100 } as const;

export async function startFixture(prefix: string): Promise<Fixture> {
  const fake = await startFakeModelServer();
  const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
  const work = await mkdtemp(join(tmpdir(), `${prefix}-work-`));
  return {
    fake,
    dir,
    work,
    async close() {
      await fake.close();
      await rm(dir, REMOVE_OPTIONS);
      await rm(work, REMOVE_OPTIONS);
    },
  };
}

/**
 * The stack around one engine with the audit ledger as serve opens it: on the store's SQLite file in `dir`.
 * `stop` closes the ledger after the stack.
 */
export async function startAuditedStack(dir: string, work: string, driver: EngineDriver) {
  const db = join(dir, 'agentlane.db');
  const ledger = createSqliteLedger({ database: db });
  try {
    const stack = await startStack({ db, drivers: [driver], workDir: work, audit: ledger });
    return {
      ...stack,
      async stop() {
        await stack.stop();
        await ledger.close();
      },
    };
  } catch (error) {
    await ledger.close();
    throw error;
  }
}
