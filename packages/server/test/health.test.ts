import type { Store } from '@agentlane/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObservability } from '../src';
import { readJson, startTestServer, type TestServer } from './support/harness';
import { deltaWrite, settledHead } from './support/large-rows';

const diskFull = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

async function health(t: TestServer) {
  const res = await fetch(`${t.api}/health`);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await readJson(res) };
}

describe('GET /health and a full disk', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t.close();
  });

  it('is 503 degraded once a write route failed for a full disk, and ok again after a write succeeds', async () => {
    const id = await t.createSession();
    const put = (title: string) =>
      fetch(`${t.api}/sessions/${id}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title }),
      });
    expect((await health(t)).body.checks['store:writes']).toEqual({ status: 'ok' });
    const updateThread = t.store.updateThread;
    t.store.updateThread = async () => {
      throw diskFull();
    };
    try {
      const refused = await put('full');
      expect(refused.status).toBe(503);
      // Reads still answer on a full disk: the read probe alone said ok.
      const { status, retryAfter, body } = await health(t);
      expect(status).toBe(503);
      expect(retryAfter).toBe('2');
      expect(body).toMatchObject({
        status: 'degraded',
        version: expect.any(String),
        store: 'sqlite',
        openStreams: 0,
        checks: { store: { status: 'ok' }, 'store:writes': { status: 'full' } },
      });
      expect(body.checks['store:writes'].error).toMatch(/^database or disk is full \(writes fail since /);
    } finally {
      t.store.updateThread = updateThread;
    }
    expect((await put('room again')).status).toBe(200);
    const after = await health(t);
    expect([after.status, after.body.status, after.retryAfter]).toEqual([200, 'ok', null]);
    expect(after.body.checks['store:writes']).toEqual({ status: 'ok' });
  });

  it('hears a write the lane makes for a route (run.create) fail', async () => {
    const id = await t.createSession();
    const createRun = t.store.createRun;
    t.store.createRun = async () => {
      throw diskFull();
    };
    try {
      const res = await fetch(`${t.api}/threads/${id}/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'hello' }),
      });
      expect(res.status).toBe(503);
      expect((await health(t)).body.checks['store:writes'].status).toBe('full');
    } finally {
      t.store.createRun = createRun;
    }
    // The run's rows, committed by the lane's own store (not observed here), are heard as commits.
    const res = await fetch(`${t.api}/threads/${id}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hello' }),
    });
    expect(res.status).toBe(201);
    while ((await health(t)).status !== 200) await new Promise((r) => setTimeout(r, 20));
    expect((await health(t)).body.checks['store:writes']).toEqual({ status: 'ok' });
  });
});

describe('GET /health and the writes of an observed store (agentlane serve)', () => {
  const observability = createObservability();
  let t: TestServer;
  /** The store as the lane writes through it (observed, as `agentlane serve` hands it over)… */
  let laneStore!: Store;
  /** …and the one it wraps, where a test puts the failure. */
  let raw!: Store;
  beforeAll(async () => {
    t = await startTestServer(
      { observability },
      {
        wrapStore: (store) => {
          raw = store;
          laneStore = observability.observeStore(store);
          return laneStore;
        },
      },
    );
  });
  afterAll(async () => {
    await t.close();
  });

  it("hears the lane's own appends through the observed store, and a no-op write does not clear it", async () => {
    const id = await t.createSession();
    const { run } = await t.store.createRun({ threadId: id, prompt: 'p' });
    // The session's own rows are committed first: their commit must not be what clears the state below.
    await settledHead(t.store, id);
    const write = deltaWrite(run.runId, id, 'full', 1, 'x');
    const appendEvents = raw.appendEvents;
    raw.appendEvents = async () => {
      throw diskFull();
    };
    try {
      await expect(laneStore.appendEvents(id, [write], true)).rejects.toThrow(/disk is full/);
    } finally {
      raw.appendEvents = appendEvents;
    }
    expect((await health(t)).body.checks['store:writes'].status).toBe('full');
    // Renewing no lease commits nothing: it says nothing about the disk.
    await laneStore.renewRunLeases('nobody', 1000);
    expect((await health(t)).status).toBe(503);
    await laneStore.appendEvents(id, [write], true);
    expect((await health(t)).status).toBe(200);
  });
});

describe('GET /health while the database does not answer', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ healthTimeoutMs: 300 });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 503 `timeout` at its bound, with one probe in flight however often it is asked', async () => {
    let calls = 0;
    let answer!: () => void;
    const listThreads = t.store.listThreads;
    // As a PostgreSQL that is down: the pool retries its connect for 15 s before the query fails.
    t.store.listThreads = (() => {
      calls += 1;
      return new Promise((resolve) => {
        answer = () => resolve({ threads: [], nextCursor: null } as never);
      });
    }) as Store['listThreads'];
    try {
      const first = await health(t);
      expect(first.status).toBe(503);
      expect(first.retryAfter).toBe('2');
      expect(first.body).toMatchObject({
        status: 'degraded',
        store: 'sqlite',
        checks: {
          store: { status: 'timeout', error: 'the database did not answer within 300 ms' },
          'store:writes': { status: 'ok' },
        },
      });
      const again = await Promise.all([health(t), health(t)]);
      expect(again.map((h) => h.body.checks.store.status)).toEqual(['timeout', 'timeout']);
      expect(calls).toBe(1);
    } finally {
      t.store.listThreads = listThreads;
      answer();
    }
    const recovered = await health(t);
    expect([recovered.status, recovered.body.checks.store.status]).toEqual([200, 'ok']);
  });
});
