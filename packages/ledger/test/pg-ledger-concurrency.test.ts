import { randomBytes } from 'node:crypto';
import type { AuditableCall } from '@agentlane/contract';
import { PG_URL, pgAvailable } from '@agentlane/sql/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditLedger, createPgLedger } from '../src/index';
import { CONFLICT_ATTEMPTS } from '../src/pg-write';
import { row } from './rows';

const available = await pgAvailable('ledger');

/** Every row of a session, walked from the start to the end. */
async function walk(ledger: AuditLedger, session: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await ledger.list(session, { limit: 1000, ...(cursor ? { cursor } : {}) });
    ids.push(...page.items.map((r) => r.record_id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return ids;
}

/**
 * A reader that follows the session's cursor until `done()` and then catches up once more. At the end a page
 * has no nextCursor, so the reader keeps the cursor of that page and takes only the rows past the ones it
 * already took from it: a row that commits later below a returned position shows up as a miss or a repeat.
 */
async function follow(ledger: AuditLedger, session: string, done: () => boolean): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  let taken = 0;
  const toEnd = async () => {
    for (;;) {
      const page = await ledger.list(session, { limit: 7, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.slice(taken).map((r) => r.record_id));
      if (!page.nextCursor) {
        taken = page.items.length;
        return;
      }
      cursor = page.nextCursor;
      taken = 0;
    }
  };
  while (!done()) await toEnd();
  await toEnd();
  return seen;
}

describe.skipIf(!available)('PostgreSQL ledger under concurrent writers', () => {
  const schema = `ledger_conc_${randomBytes(6).toString('hex')}`;
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  let ledger: AuditLedger;
  beforeAll(async () => {
    await pool.query(`CREATE SCHEMA ${schema}`);
    ledger = await createPgLedger({ connection: PG_URL, schema });
    // Test instruments on the ledger's table (BEFORE triggers run after the row's position was allocated):
    // stage 'slow' holds its transaction open a while, as a large batch or a slow link would; 'flaky' and
    // 'doomed' fail with deadlock_detected (the first two attempts, every attempt), counted by sequences
    // (nextval is not rolled back with the failed transaction).
    await pool.query(`
      CREATE SEQUENCE ${schema}.flaky_attempts; CREATE SEQUENCE ${schema}.doomed_attempts;
      CREATE FUNCTION ${schema}.instrument() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.stage_id = 'slow' THEN PERFORM pg_sleep(0.02); END IF;
        IF NEW.stage_id = 'flaky' AND nextval('${schema}.flaky_attempts') <= 2
          OR NEW.stage_id = 'doomed' AND nextval('${schema}.doomed_attempts') > 0 THEN
          RAISE EXCEPTION 'injected deadlock' USING ERRCODE = '40P01';
        END IF;
        RETURN NEW; END $$;
      CREATE TRIGGER instrument BEFORE INSERT ON ${schema}.harness_auditable_calls
        FOR EACH ROW EXECUTE FUNCTION ${schema}.instrument();`);
  });
  afterAll(async () => {
    await ledger?.close();
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
  });

  it('a reader following the cursor during concurrent writes of one session sees every row exactly once', async () => {
    const session = 's-follow';
    const writers = 6;
    const batches = 8;
    let writing = true;
    const reader = follow(ledger, session, () => !writing);
    const written: string[] = [];
    const writer = async (w: number) => {
      for (let b = 0; b < batches; b++) {
        // The batch's first row is slow: its position is taken, then its commit waits while others write.
        const rows = Array.from({ length: 4 }, (_, i) =>
          row({ session_id: session, turn_id: `w${w}b${b}`, stage_id: i === 0 ? 'slow' : 'tool-loop' }),
        );
        written.push(...rows.map((r) => r.record_id));
        await ledger.record(rows);
      }
    };
    await Promise.all(Array.from({ length: writers }, (_, w) => writer(w))).finally(() => {
      writing = false;
    });
    const seen = await reader;
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...written].sort());
    expect((await walk(ledger, session)).sort()).toEqual([...written].sort());
  });

  it('writers recording the same batch concurrently, in either order, never fail and store it once', async () => {
    const session = 's-same';
    let stored = 0;
    for (let round = 0; round < 15; round++) {
      const rows = Array.from({ length: 200 }, (_, i) =>
        row({ session_id: session, turn_id: `t${round}`, seq_within_turn: i + 1 }),
      );
      const results = await Promise.allSettled([
        ledger.record(rows),
        ledger.record([...rows].reverse()),
        ledger.record(rows),
      ]);
      const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
      expect(failures).toEqual([]);
      const inserted = results.map((r) => (r.status === 'fulfilled' ? r.value.inserted : 0));
      expect(inserted.reduce((a, b) => a + b, 0)).toBe(200);
      stored += 200;
    }
    const ids = await walk(ledger, session);
    expect(ids).toHaveLength(stored);
    expect(new Set(ids).size).toBe(stored);
  });

  it('writers of batches spanning two sessions in opposite orders never deadlock', async () => {
    const mixed = (round: number): AuditableCall[] =>
      Array.from({ length: 100 }, (_, i) =>
        row({ session_id: i % 2 ? 's-mix-a' : 's-mix-b', turn_id: `t${round}`, seq_within_turn: i + 1 }),
      );
    for (let round = 0; round < 10; round++) {
      const rows = mixed(round);
      const results = await Promise.allSettled([ledger.record(rows), ledger.record([...rows].reverse())]);
      expect(results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []))).toEqual([]);
    }
    expect(await walk(ledger, 's-mix-a')).toHaveLength(500);
    expect(await walk(ledger, 's-mix-b')).toHaveLength(500);
  });

  it('retries a deadlock victim a bounded number of times', async () => {
    // Fails twice, then succeeds: the write is retried, not surfaced.
    const flaky = row({ session_id: 's-flaky', stage_id: 'flaky' });
    expect(await ledger.record([flaky])).toEqual({ inserted: 1 });
    expect(await walk(ledger, 's-flaky')).toEqual([flaky.record_id]);
    // Fails every time: the error surfaces after CONFLICT_ATTEMPTS attempts.
    await expect(ledger.record([row({ session_id: 's-doomed', stage_id: 'doomed' })])).rejects.toMatchObject({
      code: '40P01',
    });
    const { rows } = await pool.query(`SELECT last_value FROM ${schema}.doomed_attempts`);
    expect(Number(rows[0].last_value)).toBe(CONFLICT_ATTEMPTS);
  });
});
