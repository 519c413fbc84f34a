import { afterAll, beforeAll, expect, it } from 'vitest';
import { readJson, startTestServer, type TestServer } from './support/harness';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({
    unavailableEngines: [{ name: 'gemini', reason: 'the agent exited during initialize (code 41)' }],
  });
});
afterAll(async () => {
  await t.close();
});

it('GET /health names an engine that was found but not offered, with why, and stays ok', async () => {
  const res = await fetch(`${t.api}/health`);
  expect(res.status).toBe(200);
  const body = await readJson(res);
  expect(body.status).toBe('ok');
  expect(body.checks['engine:gemini']).toEqual({
    status: 'unavailable',
    error: 'the agent exited during initialize (code 41)',
  });
  expect(body.engines.map((e: { name: string }) => e.name)).not.toContain('gemini');
});
