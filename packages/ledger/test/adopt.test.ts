import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { LEDGER_COLUMNS, openLedger } from '../src/index';
import { row } from './rows';

// The DDL the ledger ran at every open before it had versioned migrations (a fixture of the older build).
const UNVERSIONED_SCHEMA = `
CREATE TABLE IF NOT EXISTS harness_auditable_calls (
  position INTEGER PRIMARY KEY AUTOINCREMENT, record_id TEXT NOT NULL UNIQUE, audit_record_version INTEGER NOT NULL,
  session_id TEXT NOT NULL, turn_id TEXT NOT NULL, stage_id TEXT NOT NULL, seq_within_turn INTEGER NOT NULL,
  created_at TEXT NOT NULL, actor_kind TEXT NOT NULL, session_auth_method TEXT NOT NULL, call_class TEXT NOT NULL,
  provider TEXT NOT NULL, model TEXT, transport TEXT NOT NULL, status TEXT NOT NULL, latency_ms REAL NOT NULL,
  finish_reason TEXT, http_status INTEGER, payload TEXT NOT NULL,
  UNIQUE (session_id, turn_id, stage_id, seq_within_turn)
);
CREATE INDEX IF NOT EXISTS harness_auditable_calls_session ON harness_auditable_calls (session_id, position);
CREATE TRIGGER IF NOT EXISTS harness_auditable_calls_no_update BEFORE UPDATE ON harness_auditable_calls
BEGIN SELECT RAISE(ABORT, 'harness_auditable_calls is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS harness_auditable_calls_no_delete BEFORE DELETE ON harness_auditable_calls
BEGIN SELECT RAISE(ABORT, 'harness_auditable_calls is append-only: DELETE refused'); END;
`;

describe('a ledger created before versioned migrations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-adopt-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('opens with its rows, is adopted as version 1 (then 2 and 3), and stays append-only', async () => {
    const path = join(dir, 'old.db');
    const old = new Database(path);
    old.exec(UNVERSIONED_SCHEMA);
    const before = row({ session_id: 's-adopt', seq_within_turn: 1 });
    // A row the old build wrote, through the same columns.
    old
      .prepare(
        `INSERT INTO harness_auditable_calls (${LEDGER_COLUMNS.join(', ')}) VALUES (${LEDGER_COLUMNS.map(() => '?').join(', ')})`,
      )
      .run(...LEDGER_COLUMNS.map((c) => (c === 'payload' ? JSON.stringify(before.payload) : before[c])));
    expect(old.prepare("SELECT name FROM sqlite_master WHERE name = 'harness_ledger_migrations'").get()).toBe(
      undefined,
    );
    old.close();

    const ledger = await openLedger(`sqlite:${path}`);
    const after = row({ session_id: 's-adopt', seq_within_turn: 2 });
    await ledger.record([after]);
    expect((await ledger.list('s-adopt')).items).toEqual([before, after]);
    await ledger.close();

    const check = new Database(path);
    expect(check.prepare('SELECT version, name FROM harness_ledger_migrations').all()).toEqual([
      { version: 1, name: 'audit ledger' },
      { version: 2, name: 'no replace of a stored row' },
      { version: 3, name: 'payload as JSON text' },
    ]);
    expect(() => check.prepare('DELETE FROM harness_auditable_calls').run()).toThrow(/append-only/);
    check.close();
  });
});

describe('a ledger created now', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-new-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores latency_ms as an INTEGER column: a plain-SQL reader gets 12, not 12.0', async () => {
    const path = join(dir, 'new.db');
    const ledger = await openLedger(`sqlite:${path}`);
    await ledger.record([row({ session_id: 's-int', latency_ms: 12 })]);
    await ledger.close();
    const check = new Database(path);
    const column = (
      check.prepare('PRAGMA table_info(harness_auditable_calls)').all() as { name: string; type: string }[]
    ).find((c) => c.name === 'latency_ms');
    expect(column?.type).toBe('INTEGER');
    expect(check.prepare('SELECT typeof(latency_ms) AS t FROM harness_auditable_calls').get()).toEqual({
      t: 'integer',
    });
    check.close();
  });
});
