import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteLedger } from '../src/index';
import { ledgerSuite } from './ledger-suite';
import { row } from './rows';

describe('SQLite ledger', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
  const path = join(dir, 'ledger.db');
  const raw = new Database(path);
  afterAll(() => {
    raw.close();
    rmSync(dir, { recursive: true, force: true });
  });
  ledgerSuite(
    async () => createSqliteLedger({ database: path }),
    async (sql) => raw.prepare(sql).run(),
  );

  it('INSERT OR REPLACE cannot rewrite a stored row (it deletes and re-inserts without the DELETE trigger)', async () => {
    const ledger = createSqliteLedger({ database: path });
    await ledger.record([row({ session_id: 's-replace' })]);
    const cols = (raw.prepare('PRAGMA table_info(harness_auditable_calls)').all() as { name: string }[]).map(
      (c) => c.name,
    );
    const values = cols.map((c) => (c === 'status' ? "'error'" : c));
    raw
      .prepare(
        `INSERT OR REPLACE INTO harness_auditable_calls (${cols.join(', ')}) SELECT ${values.join(', ')} FROM harness_auditable_calls WHERE session_id = 's-replace'`,
      )
      .run();
    const [stored] = (await ledger.list('s-replace')).items;
    expect(stored?.status).toBe('ok');
    await ledger.close();
  });
});
