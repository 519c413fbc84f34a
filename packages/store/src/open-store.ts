import { parseDatabaseUrl } from '@agentlane/sql';
import { createPostgresStore } from './postgres/create-postgres-store.js';
import { createSqliteStore } from './sqlite/create-sqlite-store.js';
import type { Store } from './store.js';

// Read by the SQL layer, the one place every package reads a database URL.
export { postgresOptions, sqlitePath } from '@agentlane/sql';

/**
 * Opens and migrates a store from one setting: `postgres://…` / `postgresql://…` picks PostgreSQL (an extra
 * `?schema=name` puts the tables in that schema), anything else is a SQLite file (`sqlite:relative.db`,
 * `sqlite:///abs.db`, `file:…` or a plain path).
 */
export async function openStore(url: string): Promise<Store> {
  if (typeof url !== 'string' || url.trim() === '') throw new Error('store url is empty');
  const target = parseDatabaseUrl(url);
  const store =
    target.dialect === 'postgres'
      ? createPostgresStore({ url: target.url, ...(target.schema ? { schema: target.schema } : {}) })
      : createSqliteStore({ path: target.path });
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}
