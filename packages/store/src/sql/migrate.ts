import {
  applyMigrations,
  type Migration,
  type MigrationSet,
  SchemaTooNewError,
  type SqlConn,
} from '@agentlane/sql';
import { StoreError } from '../store.js';

/**
 * The store's tables as one migration set of the SQL layer's runner, recorded in `store_migrations`. The
 * lock key is the one the store always used, so processes of this build and the previous one serialise too.
 */
export function storeMigrationSet(migrations: readonly Migration[]): MigrationSet {
  return { table: 'store_migrations', recordsNames: true, lockKey: 'agentlane_migrate', migrations };
}

/** A database migrated by a newer build is refused as unavailable (the store never downgrades a schema). */
export function asStoreError(error: unknown): unknown {
  return error instanceof SchemaTooNewError ? new StoreError('unavailable', error.message) : error;
}

/** Applies the store's migrations not applied yet. Called inside a transaction that serialises migrators. */
export async function applyStoreMigrations(
  c: SqlConn,
  migrations: readonly Migration[],
  now: string,
): Promise<void> {
  await applyMigrations(c, storeMigrationSet(migrations), now).catch((error: unknown) => {
    throw asStoreError(error);
  });
}
