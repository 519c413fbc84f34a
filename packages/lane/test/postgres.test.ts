import { createPostgresStore, type Store } from '@agentlane/store';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLane } from '../src';
import { PublishHub } from '../src/internal';
import { Collector, waitFor } from './helpers/collect';
import { warning } from './helpers/rows';
import { PG_URL, pgAvailable, pgTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

const available = await pgAvailable();

describe.skipIf(!available)('lane on PostgreSQL', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await pgTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it('runs, streams and canonicalizes a run', async () => {
    await t.store.createThread({ threadId: 'pg1', engine: 'test', title: null, workDir: null, metadata: {} });
    const lane = createLane({
      store: t.store,
      drivers: [createTestDriver()],
      ownerId: 'pg-owner',
      pollIntervalMs: 20,
    });
    await lane.start();
    try {
      const c = new Collector();
      await lane.subscribe('pg1', 0, c.listener);
      const { run } = await lane.createRun({ threadId: 'pg1', prompt: 'delta a\ndeltas 20 0\nsnapshot s x' });
      await c.until((x) => x.events.some((e) => e.type === 'run.canonicalized'));
      const table = await t.store.readEvents('pg1', 0, 1000);
      expect(c.seqs()).toEqual(table.map((r) => r.deliverySeq));
      expect(c.seqs()).toEqual(table.map((_, i) => i + 1));
      expect((await t.store.getRun(run.runId))?.status).toBe('completed');
    } finally {
      await lane.stop();
    }
  });

  it('several connections writing one thread at once: a live subscriber in another store never sees N+1 before N', async () => {
    await t.store.createThread({ threadId: 'pgw', engine: 'test', title: null, workDir: null, metadata: {} });
    // Writers and the subscriber use separate stores (separate pools): wake-ups go through LISTEN/NOTIFY.
    const writers: Store[] = [];
    for (let i = 0; i < 4; i++) {
      const s = createPostgresStore({ url: PG_URL, schema: schemaOf(t.store), poolSize: 2 });
      writers.push(s);
    }
    const reader = createPostgresStore({ url: PG_URL, schema: schemaOf(t.store), poolSize: 2 });
    const hub = new PublishHub(reader, { headPollMs: 0 });
    const seen: number[] = [];
    await hub.subscribe('pgw', 0, (e) => {
      if ('deliverySeq' in e && 'event' in e) seen.push(e.deliverySeq);
    });
    try {
      await Promise.all(
        writers.map(async (w, wi) => {
          for (let k = 0; k < 25; k++)
            await w.appendEvents(
              'pgw',
              [warning('pgw', `w${wi}-${k}`), warning('pgw', `w${wi}-${k}b`)],
              true,
            );
        }),
      );
      await waitFor(async () => seen.length >= 200, 15_000);
      expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    } finally {
      hub.close();
      await Promise.all([...writers, reader].map((s) => s.close()));
    }
  });

  it('a subscriber served by another process hears the run signals of the process that runs it', async () => {
    await t.store.createThread({ threadId: 'pgx', engine: 'test', title: null, workDir: null, metadata: {} });
    const { runner, follower, stop } = await twoProcesses(t.store, 'x');
    try {
      const c = new Collector();
      await follower.subscribe('pgx', 0, c.listener);
      const { run } = await runner.createRun({ threadId: 'pgx', prompt: 'delta a\ndeltas 5 0' });
      await c.until((x) => x.events.some((e) => e.type === 'run.canonicalized' && e.runId === run.runId));
      const signals = c.events.flatMap((e) =>
        e.type === 'run.status' || e.type === 'run.canonicalized' ? [`${e.type}:${e.status}`] : [],
      );
      expect(signals).toEqual([
        'run.status:queued',
        'run.status:running',
        'run.status:completed',
        'run.canonicalized:completed',
      ]);
      // The completion signal covers every row the follower delivered.
      const completion = c.events.find((e) => e.type === 'run.canonicalized');
      expect(completion && 'lastDeliverySeq' in completion && completion.lastDeliverySeq).toBe(
        c.seqs().at(-1),
      );
    } finally {
      await stop();
    }
  });

  it('signals sent while the LISTEN connection is down are read back from the store when it is up again', async () => {
    await t.store.createThread({ threadId: 'pgl', engine: 'test', title: null, workDir: null, metadata: {} });
    const { runner, follower, stop } = await twoProcesses(t.store, 'l');
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    // Keeps this process's LISTEN connections down (terminated as soon as they are back) until stopped.
    let holding = true;
    let terminated = 0;
    const hold = (async () => {
      while (holding) {
        const r = await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
          [`agentlane-${process.pid}-listen`],
        );
        terminated += r.rowCount ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    try {
      const c = new Collector();
      await follower.subscribe('pgl', 0, c.listener);
      await waitFor(async () => terminated > 0);
      const { run } = await runner.createRun({ threadId: 'pgl', prompt: 'delta a\ndeltas 5 0' });
      await waitFor(async () => (await t.store.getRun(run.runId))?.canonicalizedAt);
      holding = false;
      await hold;
      await c.until((x) => x.events.some((e) => e.type === 'run.canonicalized' && e.runId === run.runId));
      const statuses = c.events.flatMap((e) =>
        e.type === 'run.status' && e.runId === run.runId ? [e.statusVersion] : [],
      );
      // The final status is heard (the ones before it may be: the listener is back between two terminations).
      expect(statuses.at(-1)).toBe((await t.store.getRun(run.runId))?.statusVersion);
      expect(c.events.filter((e) => e.type === 'run.status' && e.runId === run.runId).at(-1)).toMatchObject({
        status: 'completed',
      });
      // No status heard twice or out of order, and every row delivered before the completion that covers it.
      expect(statuses).toEqual([...new Set(statuses)].sort((a, b) => (a ?? 0) - (b ?? 0)));
      const completion = c.events.find((e) => e.type === 'run.canonicalized');
      expect(completion && 'lastDeliverySeq' in completion && completion.lastDeliverySeq).toBe(
        c.seqs().at(-1),
      );
    } finally {
      holding = false;
      await hold;
      await admin.end();
      await stop();
    }
  });
});

/**
 * Two "processes" on the test store's schema: each its own store (own pool, own LISTEN connection) and lane.
 * The runner executes; the follower only serves subscribers.
 */
async function twoProcesses(store: Store, tag: string) {
  const runnerStore = createPostgresStore({ url: PG_URL, schema: schemaOf(store), poolSize: 2 });
  const followerStore = createPostgresStore({ url: PG_URL, schema: schemaOf(store), poolSize: 2 });
  const runner = createLane({
    store: runnerStore,
    drivers: [createTestDriver()],
    ownerId: `pg-runner-${tag}`,
    pollIntervalMs: 20,
  });
  const follower = createLane({
    store: followerStore,
    drivers: [createTestDriver()],
    ownerId: `pg-follower-${tag}`,
    execute: false,
  });
  await runner.start();
  await follower.start();
  return {
    runner,
    follower,
    async stop() {
      await runner.stop();
      await follower.stop();
      await Promise.all([runnerStore.close(), followerStore.close()]);
    },
  };
}

/** The schema the test store was created with (pgTestStore records it). */
function schemaOf(store: Store): string {
  return (store as unknown as { __schema: string }).__schema;
}
