import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer, type TestServer } from './support/harness';
import { SseReader } from './support/sse-reader';

// Two servers on one database, as two processes behind a load balancer: a client streams from the one that
// does not run its thread's runs and still hears everything — rows, run signals, sync conflicts.
let runner: TestServer;
let follower: TestServer;
beforeAll(async () => {
  runner = await startTestServer();
  follower = await startTestServer({}, { dbPath: runner.dbPath, execute: false });
});
afterAll(async () => {
  await follower?.close();
  await runner?.close();
});

describe('a stream served by another server process', () => {
  it('hears the rows, run.status and run.canonicalized of a run the other server executes', async () => {
    const id = await runner.createSession();
    const stream = new SseReader(`${follower.api}/threads/${id}/events`);
    await stream.waitFor((r) => r.events.length > 0);
    const created = await postJson(`${runner.api}/threads/${id}/runs`, { prompt: 'many 5' });
    const runId = created.json.run.runId as string;
    await stream.waitFor((r) => r.events.some((e) => e.type === 'run.canonicalized'));
    const signals = stream.events.flatMap((e) =>
      (e.type === 'run.status' || e.type === 'run.canonicalized') && e.runId === runId
        ? [`${e.type}:${e.status}`]
        : [],
    );
    expect(signals).toEqual([
      'run.status:queued',
      'run.status:running',
      'run.status:completed',
      'run.canonicalized:completed',
    ]);
    const head = await runner.store.headDeliverySeq(id);
    expect(stream.seqs).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    stream.close();
  });

  it('hears a sync conflict reported by the other server', async () => {
    const id = await runner.createSession();
    const stream = new SseReader(`${follower.api}/threads/${id}/events`);
    await stream.waitFor((r) => r.events.length > 0);
    const write = (clientId: string, value: string) =>
      postJson(`${runner.api}/sessions/${id}/sync`, {
        clientId,
        vector: { [clientId]: 1 },
        changes: [{ version: 1, key: 'k', value, vector: { [clientId]: 1 } }],
      });
    expect((await write('a', 'from a')).status).toBe(200);
    expect((await write('b', 'from b')).status).toBe(200);
    await stream.waitFor((r) => r.events.some((e) => e.type === 'sync.conflict'));
    expect(stream.events.find((e) => e.type === 'sync.conflict')).toMatchObject({ sessionId: id, key: 'k' });
    stream.close();
  });
});
