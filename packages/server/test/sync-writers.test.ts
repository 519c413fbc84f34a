import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_LIMITS } from '../src/sync/sync-state';
import { postJson, startTestServer, type TestServer } from './support/harness';

// A vector a client sends names at most 128 clients. A session with more writers answered vectors past that,
// and the client's next sync with the vector it was given was refused (400): it could never sync again.

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('sync writers per session', () => {
  it(`stop at ${SYNC_LIMITS.writersPerSession}; every answer's vector is one the client can send back`, async () => {
    const session = await t.createSession();
    const sync = (body: unknown) => postJson(`${t.api}/sessions/${session}/sync`, body);
    const writers = Array.from({ length: SYNC_LIMITS.writersPerSession }, (_, i) => `w${i}`);
    for (const w of writers) {
      const res = await sync({
        clientId: w,
        vector: { [w]: 1 },
        changes: [{ key: w, value: 1, version: 1, vector: { [w]: 1 } }],
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
    }
    // One more writer is refused, naming the field; the session is as it was.
    const extra = await sync({
      clientId: 'late',
      vector: { late: 1 },
      changes: [{ key: 'late', value: 1, version: 1, vector: { late: 1 } }],
    });
    expect(extra.status).toBe(409);
    expect(extra.json.error.field).toBe('body.clientId');
    expect(extra.json.error.message).toMatch(/at most 128 write in one session/);
    // A reader (zero entries of its own and of others in its vector) is answered with writers only, and
    // syncs again with that vector; so does a writer that already wrote.
    const zeros = Object.fromEntries(
      ['reader', ...writers.slice(0, 100).map((w) => `${w}x`)].map((id) => [id, 0]),
    );
    const read = await sync({ clientId: 'reader', vector: zeros, changes: [] });
    expect(read.status).toBe(200);
    expect(Object.keys(read.json.vector).sort()).toEqual([...writers].sort());
    const again = await sync({ clientId: 'reader', vector: read.json.vector, changes: [] });
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    const w0 = await sync({
      clientId: 'w0',
      vector: { ...read.json.vector, w0: 2 },
      changes: [{ key: 'w0', value: 2, version: 2, vector: { ...read.json.vector, w0: 2 } }],
    });
    expect(w0.status, JSON.stringify(w0.json)).toBe(200);
  });
});
