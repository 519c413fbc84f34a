import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe } from 'vitest';
import { createSqliteLedger } from '../src/index';
import { ledgerSuite } from './ledger-suite';

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
});
