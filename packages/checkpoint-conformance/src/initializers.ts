import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createMemorySaver,
  createPgSaver,
  createSqliteSaver,
  type DeltaSaverOptions,
} from '@agentlane/checkpoints';
import pg from 'pg';
import type { SaverInitializer } from './runner.js';

// The three shipped backends, each plugged in the way a third-party backend would be.

export function memoryInitializer(options: DeltaSaverOptions = {}): SaverInitializer {
  return { name: 'memory', create: async () => createMemorySaver(options) };
}

export function sqliteInitializer(options: DeltaSaverOptions = {}): SaverInitializer {
  let dir = '';
  return {
    name: 'sqlite',
    beforeAll: async () => {
      dir = mkdtempSync(join(tmpdir(), 'agentlane-checkpoints-'));
    },
    create: async () => createSqliteSaver({ ...options, database: join(dir, 'checkpoints.db') }),
    afterAll: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** One fresh schema per run (random name), dropped afterwards, so concurrent runs never meet. */
export function pgInitializer(url: string, options: DeltaSaverOptions = {}): SaverInitializer {
  const schema = `cp_conformance_${Math.random().toString(36).slice(2, 10)}`;
  return {
    name: 'postgres',
    create: () => createPgSaver({ ...options, connection: url, schema }),
    afterAll: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** Whether a PostgreSQL server answers at `url` (used to decide skip vs fail). */
export async function pgReachable(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}
