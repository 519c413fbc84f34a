import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type AuditLedger, createPgLedger } from '../src/index';
import { ledgerSuite } from './ledger-suite';

const PG_URL = process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function reachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch (error) {
    const reason = `PostgreSQL at ${PG_URL.replace(/\/\/[^@]*@/, '//***@')} is unreachable: ${(error as Error).message}`;
    if (process.env.CI === 'true') throw new Error(`${reason} (CI=true: the PostgreSQL suite must run)`);
    console.warn(`[ledger] skipping PostgreSQL tests: ${reason}`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const available = await reachable();

describe.skipIf(!available)('PostgreSQL ledger', () => {
  const schema = `ledger_${randomBytes(6).toString('hex')}`;
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  const opened: AuditLedger[] = [];
  beforeAll(async () => {
    await pool.query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    for (const l of opened) await l.close();
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
  });
  ledgerSuite(
    async () => {
      const l = await createPgLedger({ connection: PG_URL, schema });
      opened.push(l);
      return l;
    },
    (sql) => pool.query(sql.replace(/harness_auditable_calls/, `${schema}.harness_auditable_calls`)),
  );
  it.skipIf(!available)('refuses TRUNCATE too', async ({ expect }) => {
    await expect(pool.query(`TRUNCATE ${schema}.harness_auditable_calls`)).rejects.toThrow(/append-only/);
  });
});
