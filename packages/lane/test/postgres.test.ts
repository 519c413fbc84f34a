import type { CanonicalEvent } from '@agentlane/contract';
import { createPostgresStore, type Store } from '@agentlane/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLane, PublishHub } from '../src';
import { Collector, waitFor } from './helpers/collect';
import { PG_URL, pgAvailable, pgTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

const available = await pgAvailable();

function warning(threadId: string, id: string): { event: CanonicalEvent } {
  return {
    event: {
      schemaVersion: 1,
      eventId: id,
      seq: 1,
      runId: 'r',
      threadId,
      turnId: 'r',
      ts: new Date(0).toISOString(),
      identity: { provider: 'test' },
      kind: 'harness.warning',
      payload: { code: 'c', message: id },
    } as CanonicalEvent,
  };
}

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
    // Two "processes": each its own store (own pool, own LISTEN connection) and lane on one schema. The
    // runner executes; the follower only serves a subscriber.
    const runnerStore = createPostgresStore({ url: PG_URL, schema: schemaOf(t.store), poolSize: 2 });
    const followerStore = createPostgresStore({ url: PG_URL, schema: schemaOf(t.store), poolSize: 2 });
    const runner = createLane({
      store: runnerStore,
      drivers: [createTestDriver()],
      ownerId: 'pg-runner',
      pollIntervalMs: 20,
    });
    const follower = createLane({
      store: followerStore,
      drivers: [createTestDriver()],
      ownerId: 'pg-follower',
      execute: false,
    });
    await runner.start();
    await follower.start();
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
      await runner.stop();
      await follower.stop();
      await Promise.all([runnerStore.close(), followerStore.close()]);
    }
  });
});

/** The schema the test store was created with (pgTestStore records it). */
function schemaOf(store: Store): string {
  return (store as unknown as { __schema: string }).__schema;
}
