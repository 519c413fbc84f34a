import { storeMigrations } from '../sql/store-migrations.js';

/** PostgreSQL's list of the store's migrations (written once for both dialects in sql/store-migrations.ts). */
export const POSTGRES_MIGRATIONS = storeMigrations('postgres');
