import { createPostgresStore } from './postgres/create-postgres-store';
import { createSqliteStore } from './sqlite/create-sqlite-store';
import type { Store } from './store';

/**
 * Opens and migrates a store from one setting: `postgres://…` / `postgresql://…` picks PostgreSQL (an extra
 * `?schema=name` puts the tables in that schema), anything else is a SQLite file (`sqlite:relative.db`,
 * `sqlite:///abs.db`, `file:…` or a plain path).
 */
export async function openStore(url: string): Promise<Store> {
  if (typeof url !== 'string' || url.trim() === '') throw new Error('store url is empty');
  const store = /^postgres(ql)?:\/\//i.test(url)
    ? createPostgresStore(postgresOptions(url))
    : createSqliteStore({ path: sqlitePath(url) });
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}

export function postgresOptions(url: string): { url: string; schema?: string } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  if (schema === null) return { url };
  parsed.searchParams.delete('schema');
  return { url: parsed.toString(), schema };
}

export function sqlitePath(url: string): string {
  if (url.startsWith('sqlite://')) return url.slice('sqlite://'.length);
  if (url.startsWith('sqlite:')) return url.slice('sqlite:'.length);
  if (url.startsWith('file://')) return decodeURIComponent(new URL(url).pathname);
  if (url.startsWith('file:')) return url.slice('file:'.length);
  return url;
}
