import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PG_URL } from '../../../store/test/pg-available';

// Reachability (a printed skip locally, a failure under CI=true) is the store suite's own check.
export { PG_URL, pgAvailable } from '../../../store/test/pg-available';

/** A store URL on a schema of the test's own (several engineers share the database) and its cleanup. */
export function pgSchemaUrl(prefix: string): { url: string; drop: () => Promise<void> } {
  const schema = `${prefix}_${randomBytes(5).toString('hex')}`;
  const sep = PG_URL.includes('?') ? '&' : '?';
  return {
    url: `${PG_URL}${sep}schema=${schema}`,
    async drop() {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
