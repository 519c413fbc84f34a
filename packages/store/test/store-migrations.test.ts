import { describe, expect, it } from 'vitest';
import { STORE_MIGRATIONS, storeMigrations } from '../src/sql/store-migrations';

/** What shipped, per dialect, in version order: a database records these names against these versions. */
const SHIPPED = {
  sqlite: [
    'initial store',
    'command clock',
    'run outcome',
    'clustered source frames, raw frame sidecar',
    'run leases, status version, cancel flag',
    'canonical events: no replace, no delete outside deleteThread',
    'chunked artifacts',
    'compressed artifacts',
    'live signals between processes',
    'sync key heads',
    'frame hashes and lane rewrite counts',
  ],
  postgres: [
    'initial store',
    'command clock',
    'run outcome',
    'raw frame sidecar',
    'frames and canonical events without foreign-key triggers',
    'run leases, status version, cancel flag',
    'canonical events: no delete outside deleteThread',
    'chunked artifacts',
    'compressed artifacts',
    'sync key heads',
    'frame hashes and lane rewrite counts',
  ],
} as const;

describe('the store schema, written once for both dialects', () => {
  it.each(['sqlite', 'postgres'] as const)(
    '%s: the shipped versions keep their names and order',
    (dialect) => {
      expect(storeMigrations(dialect).map((m) => m.name)).toEqual(SHIPPED[dialect]);
    },
  );

  it('every script renders for its dialect with no placeholder left and no other dialect type in it', () => {
    for (const m of storeMigrations('sqlite')) {
      expect(m.sql).not.toMatch(/\{\{|BIGINT|BYTEA|plpgsql/);
    }
    for (const m of storeMigrations('postgres')) {
      expect(m.sql).not.toMatch(/\{\{|BLOB|AUTOINCREMENT|WITHOUT ROWID/);
    }
  });

  it('the shared tables are one template: both dialects create the same tables in the first version', () => {
    const tables = (sql: string) => [...sql.matchAll(/CREATE TABLE (\w+)/g)].map((m) => m[1]);
    const sqlite = storeMigrations('sqlite')[0]?.sql ?? '';
    const postgres = storeMigrations('postgres')[0]?.sql ?? '';
    expect(tables(sqlite)).toEqual(tables(postgres));
    expect(typeof STORE_MIGRATIONS[0]?.sql).toBe('object');
  });
});
