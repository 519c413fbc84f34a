import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresStore, createSqliteStore, type Store } from '@agentlane/store';
import pg from 'pg';

export interface TestStore {
  store: Store;
  /** The SQLite file (sqlite only). */
  path?: string;
  cleanup(): Promise<void>;
}

/**
 * A fresh SQLite file. `fast` puts it on tmpfs (/dev/shm) where fsync is free: for tests about ordering, not
 * durability, so they stay quick on a shared machine.
 */
export async function sqliteTestStore(options: { fast?: boolean } = {}): Promise<TestStore> {
  const base = options.fast && existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dir = mkdtempSync(join(base, 'agentlane-lane-'));
  const path = join(dir, 'lane.db');
  const store = createSqliteStore({ path });
  await store.migrate();
  return {
    store,
    path,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const PG_URL = process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** null (with the reason printed) when PostgreSQL is unreachable; throws in CI, where it must be there. */
export async function pgAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (err) {
    if (process.env.CI === 'true')
      throw new Error(`PostgreSQL unreachable at ${PG_URL} in CI: ${String(err)}`);
    console.warn(`skipping PostgreSQL lane tests: ${PG_URL} unreachable (${String(err)})`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh schema per suite, dropped afterwards: several engineers share the database. */
export async function pgTestStore(): Promise<TestStore> {
  const schema = `lane_test_${Math.random().toString(36).slice(2, 10)}`;
  const store = createPostgresStore({ url: PG_URL, schema });
  await store.migrate();
  // Tests that open more connections to the same schema read it from here.
  (store as unknown as { __schema: string }).__schema = schema;
  return {
    store,
    async cleanup() {
      await store.close();
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}
