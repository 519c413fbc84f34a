import { storeMigrations } from '../sql/store-migrations.js';

/** SQLite's list of the store's migrations (written once for both dialects in sql/store-migrations.ts). */
export const SQLITE_MIGRATIONS = storeMigrations('sqlite');
