import { randomBytes } from 'node:crypto';
import { PG_URL, pgAvailable } from '@agentlane/sql/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type AuditLedger, createPgLedger } from '../src/index';
import { ledgerSuite } from './ledger-suite';

const available = await pgAvailable('ledger');

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
  it.skipIf(!available)('stores latency_ms as an integer column', async ({ expect }) => {
    const { rows } = await pool.query(
      `SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'harness_auditable_calls' AND column_name = 'latency_ms'`,
      [schema],
    );
    expect(rows).toEqual([{ data_type: 'integer' }]);
  });
  it.skipIf(!available)('refuses TRUNCATE too', async ({ expect }) => {
    await expect(pool.query(`TRUNCATE ${schema}.harness_auditable_calls`)).rejects.toThrow(/append-only/);
  });
});
