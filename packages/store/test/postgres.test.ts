import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, it } from 'vitest';
import { createPostgresStore, type Store } from '../src/index';
import { POSTGRES_MIGRATIONS } from '../src/postgres/postgres-migrations';
import type { SqlStoreOptions } from '../src/sql/sql-store';
import { PG_URL, pgAvailable } from './pg-available';
import { storeSuite } from './store-suite';

const available = await pgAvailable();

/** One statement on its own connection, bypassing the store; `?` placeholders. Its rows, if any. */
async function sql(
  schema: string | null,
  statement: string,
  params: (string | number | null)[] = [],
): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({
    connectionString: PG_URL,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  await client.connect();
  try {
    let n = 0;
    const result = await client.query(
      statement.replace(/\?/g, () => `$${++n}`),
      params,
    );
    return result.rows;
  } finally {
    await client.end();
  }
}

if (available) {
  // A fresh schema for this suite (several engineers share the database), emptied before every test because
  // the suite also checks global queries (claim, outbox); dropped at the end.
  const schema = `agentlane_test_${randomBytes(6).toString('hex')}`;
  let migrated = false;
  afterAll(async () => {
    await sql(null, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });

  storeSuite('postgres', async () => {
    const opened: Store[] = [];
    const open = async (options: SqlStoreOptions = {}): Promise<Store> => {
      const s = createPostgresStore({ url: PG_URL, schema, poolSize: 4, ...options });
      opened.push(s);
      await s.migrate();
      return s;
    };
    if (migrated) {
      // DELETE, not TRUNCATE: on tables this small it is ~30x cheaper.
      await sql(
        schema,
        `DO $$ DECLARE t text; BEGIN
           -- canonical rows go only for threads named in thread_deletions (the append-only trigger)
           INSERT INTO thread_deletions SELECT DISTINCT thread_id FROM canonical_events ON CONFLICT DO NOTHING;
           DELETE FROM canonical_events;
           FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = '${schema}' AND tablename <> 'store_migrations' LOOP
             EXECUTE format('DELETE FROM %I', t);
           END LOOP;
         END $$`,
      );
      await sql(schema, 'DELETE FROM store_migrations WHERE version > ?', [POSTGRES_MIGRATIONS.length]);
    }
    const store = await open();
    migrated = true;
    return {
      store,
      dialect: 'postgres',
      async rewriteFrame(runId, nativeSeq, frame) {
        await sql(schema, 'UPDATE source_frames SET frame = ? WHERE run_id = ? AND native_seq = ?', [
          JSON.stringify(frame),
          runId,
          nativeSeq,
        ]);
      },
      execSql: async (statement, params) => {
        await sql(schema, statement, params);
      },
      querySql: (statement, params) => sql(schema, statement, params),
      openPeer: (options) => open(options),
      async dispose() {
        for (const s of opened) await s.close();
      },
    };
  });
} else {
  describe('Store conformance: postgres', () => {
    it.skip('PostgreSQL unreachable (reason printed above)', () => {});
  });
}
