import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore, createSqliteStore, type Store } from '../src/index';
import { PG_URL, pgAvailable } from './pg-available';

const available = await pgAvailable();

/** A model's error as an engine reports it: a NUL, a lone surrogate and a valid pair (kept). */
const MODEL_ERROR = 'model failed: bad\u0000byte, half \ud83d pair, whole \u{1F600}';
/** As runs.error reads back on both stores: U+FFFD for each character a PostgreSQL text column cannot hold. */
const STORED_ERROR = 'model failed: bad\ufffdbyte, half \ufffd pair, whole \u{1F600}';

function runErrorTests(open: () => Promise<Store>): void {
  it('a run settled with an error holding a NUL settles, and its error reads back', async () => {
    const store = await open();
    const threadId = `thr_${randomUUID()}`;
    await store.createThread({ threadId, engine: 'fake', title: null, workDir: null, metadata: {} });
    const { run } = await store.createRun({ threadId, prompt: 'hi' });
    expect(await store.claimRun(run.runId, 'owner-1')).not.toBeNull();

    const settled = await store.finalizeRun(run.runId, 'failed', MODEL_ERROR);
    expect(settled).toMatchObject({ status: 'failed', outcome: 'failed', error: STORED_ERROR });
    expect(await store.getRun(run.runId)).toEqual(settled);
    expect(await store.listRuns(threadId)).toEqual([settled]);
    // Settling again (a retry of the same end) is the no-op it always was.
    expect(await store.finalizeRun(run.runId, 'failed', MODEL_ERROR)).toEqual(settled);
  });

  it('an outbox entry released with a canonicalization error holding a NUL is released, its error kept', async () => {
    const store = await open();
    const threadId = `thr_${randomUUID()}`;
    await store.createThread({ threadId, engine: 'fake', title: null, workDir: null, metadata: {} });
    const { run } = await store.createRun({ threadId, prompt: 'hi' });
    await store.claimRun(run.runId, 'owner-1');
    await store.finalizeRun(run.runId, 'completed');
    const worker = `w-${randomUUID()}`;
    expect((await store.leaseOutbox(worker, 100, 60_000)).map((e) => e.runId)).toContain(run.runId);
    // A translator's error quoting a frame: PostgreSQL refused the write, and the lease was never released.
    await store.releaseOutbox(run.runId, MODEL_ERROR);
    const again = (await store.leaseOutbox(`${worker}-2`, 100, 60_000)).find((e) => e.runId === run.runId);
    expect(again?.lastError).toBe(STORED_ERROR);
  });
}

describe('runs.error holding text PostgreSQL cannot store: SQLite', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterAll(async () => {
    for (const s of stores) await s.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  runErrorTests(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentlane-run-error-'));
    dirs.push(dir);
    const store = createSqliteStore({ path: join(dir, 'store.db') });
    stores.push(store);
    await store.migrate();
    return store;
  });
});

describe.skipIf(!available)('runs.error holding text PostgreSQL cannot store: PostgreSQL', () => {
  const schema = `agentlane_run_error_${randomBytes(6).toString('hex')}`;
  const stores: Store[] = [];
  afterAll(async () => {
    for (const s of stores) await s.close();
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });
  runErrorTests(async () => {
    const store = createPostgresStore({ url: PG_URL, schema, poolSize: 2 });
    stores.push(store);
    await store.migrate();
    return store;
  });
});
