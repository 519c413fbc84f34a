import { randomBytes } from 'node:crypto';
import { migratePostgres } from '@agentlane/sql';
import { PG_URL, pgAvailable } from '@agentlane/sql/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgLedger, LEDGER_COLUMNS } from '../src/index';
import { ledgerMigrations } from '../src/migrations';
import { row } from './rows';

const available = await pgAvailable('ledger');

describe.skipIf(!available)('PostgreSQL ledger: payload as JSON text, rows refused one by one', () => {
  const schema = `ledger_text_${randomBytes(6).toString('hex')}`;
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  const table = `${schema}.harness_auditable_calls`;
  beforeAll(async () => {
    await pool.query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
  });

  it('a ledger created with a jsonb payload (versions 1 and 2) is migrated to text, rows and all', async () => {
    const set = ledgerMigrations('postgres', schema);
    await migratePostgres(pool, { ...set, migrations: set.migrations.slice(0, 2) }, schema);
    const old = row({ session_id: 's-upgrade' });
    // A row the older build wrote: the payload cast to jsonb by the column.
    await pool.query(
      `INSERT INTO ${table} (${LEDGER_COLUMNS.join(', ')}) VALUES (${LEDGER_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
      LEDGER_COLUMNS.map((c) => (c === 'payload' ? JSON.stringify(old.payload) : old[c])),
    );
    const ledger = await createPgLedger({ connection: PG_URL, schema });
    try {
      const { rows } = await pool.query(
        `SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'harness_auditable_calls' AND column_name = 'payload'`,
        [schema],
      );
      expect(rows).toEqual([{ data_type: 'text' }]);
      const fresh = row({ session_id: 's-upgrade' });
      await ledger.record([fresh]);
      expect((await ledger.list('s-upgrade')).items).toEqual([old, fresh]);
      // Still append-only after the column changed type.
      await expect(pool.query(`UPDATE ${table} SET payload = '{}'`)).rejects.toThrow(/append-only/);
    } finally {
      await ledger.close();
    }
  });

  it('a row the database refuses (latency beyond its integer column) does not take the batch with it', async () => {
    const ledger = await createPgLedger({ connection: PG_URL, schema });
    try {
      const good = [row({ session_id: 's-iso' }), row({ session_id: 's-iso' })];
      const bad = row({ session_id: 's-iso', latency_ms: 2 ** 31 });
      const batch = [good[0], bad, good[1]] as typeof good;
      await expect(ledger.record(batch)).rejects.toMatchObject({
        code: 'row_refused',
        message: expect.stringContaining(bad.record_id),
      });
      expect((await ledger.list('s-iso')).items).toEqual(good);
      // A retry is the same: the good rows are stored once, the refused one is named again.
      await expect(ledger.record(batch)).rejects.toMatchObject({ code: 'row_refused' });
      expect((await ledger.list('s-iso')).items).toEqual(good);
    } finally {
      await ledger.close();
    }
  });
});
