import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHttpError } from '../src/errors';
import { startTestServer, type TestServer } from './support/harness';

describe('a database that cannot answer', () => {
  it('maps connection-class and busy errors to 503 unavailable, anything else stays unknown', () => {
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    expect(toHttpError(terminated)?.status).toBe(503);
    expect(toHttpError(new Error('Connection terminated unexpectedly'))?.code).toBe('unavailable');
    expect(toHttpError(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))?.status).toBe(
      503,
    );
    expect(toHttpError(new Error('boom'))).toBeNull();
  });

  describe('through a real server', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer();
    });
    afterAll(async () => {
      await t.close();
    });

    it('answers 503 with Retry-After and the error body, never 500', async () => {
      const id = await t.createSession();
      // The store's connection is gone (as during a PostgreSQL restart once its retries ran out).
      const real = t.store.getThread.bind(t.store);
      t.store.getThread = async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      };
      try {
        const res = await fetch(`${t.api}/sessions/${id}`);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('2');
        expect(await res.json()).toEqual({
          error: { code: 'unavailable', message: 'the database is unavailable; retry shortly' },
        });
      } finally {
        t.store.getThread = real;
      }
      expect((await fetch(`${t.api}/sessions/${id}`)).status).toBe(200);
    });
  });
});
