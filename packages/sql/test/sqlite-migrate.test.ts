import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type MigrationSet,
  migrateSqlite,
  migrateSqliteSync,
  openSqliteSide,
  SchemaTooNewError,
} from '../src/index';

const dir = mkdtempSync(join(tmpdir(), 'agentlane-sql-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const set = (n: number): MigrationSet => ({
  table: 'demo_migrations',
  recordsNames: true,
  lockKey: 'demo',
  migrations: [
    { name: 'one', sql: 'CREATE TABLE demo (id INTEGER PRIMARY KEY)' },
    { name: 'two', sql: 'ALTER TABLE demo ADD COLUMN label TEXT' },
  ].slice(0, n),
});

describe('the SQLite migration runner', () => {
  it('applies what is missing once, records versions, and refuses a schema newer than it knows', async () => {
    const path = join(dir, 'a.db');
    const db = openSqliteSide(path);
    await migrateSqlite(db, set(1));
    await migrateSqlite(db, set(2));
    await migrateSqlite(db, set(2));
    expect(db.prepare('SELECT version, name FROM demo_migrations ORDER BY version').all()).toEqual([
      { version: 1, name: 'one' },
      { version: 2, name: 'two' },
    ]);
    expect(() => migrateSqliteSync(db, set(1))).toThrow(SchemaTooNewError);
    db.close();
  });

  it('opens an up-to-date file while another connection holds the write lock (reads only)', () => {
    const path = join(dir, 'b.db');
    const db = openSqliteSide(path);
    migrateSqliteSync(db, set(2));
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    try {
      expect(() => migrateSqliteSync(db, set(2))).not.toThrow();
    } finally {
      other.exec('ROLLBACK');
      other.close();
      db.close();
    }
  });

  it('waits for a held write lock without blocking the event loop, then applies', async () => {
    const path = join(dir, 'c.db');
    const holder = new Database(path);
    holder.pragma('journal_mode = WAL');
    holder.exec('BEGIN IMMEDIATE');
    const db = openSqliteSide(path);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    setTimeout(() => holder.exec('COMMIT'), 300);
    try {
      await migrateSqlite(db, set(2));
      expect(ticks).toBeGreaterThan(5);
      expect(db.prepare('SELECT MAX(version) AS v FROM demo_migrations').get()).toEqual({ v: 2 });
    } finally {
      clearInterval(ticker);
      holder.close();
      db.close();
    }
  });
});
