import { createPostgresStore } from './postgres/create-postgres-store';
import { createSqliteStore } from './sqlite/create-sqlite-store';
import type { Store } from './store';

/**
 * Opens and migrates a store from one setting: `postgres://…` / `postgresql://…` picks PostgreSQL, anything
 * else is a SQLite file (`sqlite:relative/or/absolute.db`, `sqlite:///abs.db`, `file:…` or a plain path).
 */
export async function openStore(url: string): Promise<Store> {
  if (typeof url !== 'string' || url.trim() === '') throw new Error('store url is empty');
  const store = /^postgres(ql)?:\/\//i.test(url)
    ? createPostgresStore({ url })
    : createSqliteStore({ path: sqlitePath(url) });
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}

export function sqlitePath(url: string): string {
  if (url.startsWith('sqlite://')) return url.slice('sqlite://'.length);
  if (url.startsWith('sqlite:')) return url.slice('sqlite:'.length);
  if (url.startsWith('file://')) return decodeURIComponent(new URL(url).pathname);
  if (url.startsWith('file:')) return url.slice('file:'.length);
  return url;
}
