import { normalizeNegotiatedCapabilities } from '@agentlane/contract';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readJson, startTestServer, type TestServer } from './support/harness';
import { createScriptedDriver } from './support/scripted-engine';

let t: TestServer;
beforeAll(async () => {
  const manifest = { ...createScriptedDriver('manifest'), label: 'An engine with a static manifest' };
  t = await startTestServer(
    { unavailableEngines: [{ name: 'gemini', reason: 'the agent exited during initialize (code 41)' }] },
    {
      drivers: [
        {
          ...manifest,
          staticCapabilities: normalizeNegotiatedCapabilities({ approvals: true, usage: true }),
        },
      ],
    },
  );
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

it('GET /health lists each engine with its static capabilities where it has a manifest', async () => {
  const body = await readJson(await fetch(`${t.api}/health`));
  const byName = new Map(body.engines.map((e: { name: string }) => [e.name, e]));
  const manifest = byName.get('manifest') as { capabilities: Record<string, boolean> };
  expect(manifest.capabilities.approvals).toBe(true);
  expect(manifest.capabilities.usage).toBe(true);
  expect(manifest.capabilities.reconcile).toBe(false);
  expect(Object.keys(manifest.capabilities)).toHaveLength(20);
  expect(byName.get('scripted')).not.toHaveProperty('capabilities');
});

it('GET /health is 503 degraded with Retry-After while the database cannot answer', async () => {
  const listThreads = t.store.listThreads;
  t.store.listThreads = async () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  };
  try {
    const res = await fetch(`${t.api}/health`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect((await readJson(res)).status).toBe('degraded');
  } finally {
    t.store.listThreads = listThreads;
  }
  expect((await fetch(`${t.api}/health`)).headers.get('retry-after')).toBeNull();
});
