import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBindAllowed } from '../src';
import { readJson, startTestServer, type TestServer } from './support/harness';
import { SseReader } from './support/sse-reader';

const ALL = 'token-all-threads';
const SCOPED = 'token-one-thread';

let t: TestServer;
let mine: string;
let other: string;
let otherRun: string;
let waitingRun: string;
let myRun: string;

const auth = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

beforeAll(async () => {
  t = await startTestServer({
    tokens: [
      { token: ALL, threads: '*', name: 'admin' },
      { token: SCOPED, threads: [], name: 'scoped' },
    ],
  });
  mine = await t.createSession(auth(ALL));
  other = await t.createSession(auth(ALL));
  // Re-start with the scoped token limited to `mine`: tokens are configuration, fixed at start.
  await t.server.shutdown();
  const { createServer } = await import('../src');
  const server = await createServer({
    store: t.store,
    lane: t.lane,
    engines: t.server.context.engines,
    // The same workspace: a run starts only while its session's workDir lies inside the root.
    defaultWorkDir: t.server.context.defaultWorkDir,
    tokens: [
      { token: ALL, threads: '*', name: 'admin' },
      { token: SCOPED, threads: [mine], name: 'scoped' },
    ],
  });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const address = server.app.server.address();
  t.api = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/harness`;
  t.server = server;
  const mk = async (thread: string, prompt = 'hi') => {
    const res = await fetch(`${t.api}/threads/${thread}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth(ALL) },
      body: JSON.stringify({ prompt }),
    });
    return (await readJson(res)).run.runId as string;
  };
  myRun = await mk(mine);
  otherRun = await mk(other);
  // Waits for an approval, so it is still open when the matrix answers it (an ended run refuses answers).
  waitingRun = await mk(other, 'approve');
});
afterAll(async () => {
  await t.close();
});

type Who = 'none' | 'bad' | 'all' | 'scoped';
const tokenOf: Record<Who, string | undefined> = { none: undefined, bad: 'wrong', all: ALL, scoped: SCOPED };

interface Route {
  name: string;
  method: string;
  path: () => string;
  body?: unknown;
  /** Expected status per caller; the thread in scope of `scoped` is `mine`. */
  expect: Record<Who, number>;
}

const routes: Route[] = [
  {
    name: 'health is open',
    method: 'GET',
    path: () => '/health',
    expect: { none: 200, bad: 200, all: 200, scoped: 200 },
  },
  {
    name: 'openapi is open',
    method: 'GET',
    path: () => '/openapi.json',
    expect: { none: 200, bad: 200, all: 200, scoped: 200 },
  },
  {
    name: 'list sessions',
    method: 'GET',
    path: () => '/sessions',
    expect: { none: 401, bad: 401, all: 200, scoped: 200 },
  },
  {
    name: 'create session',
    method: 'POST',
    path: () => '/sessions',
    body: { engine: 'scripted' },
    expect: { none: 401, bad: 401, all: 201, scoped: 403 },
  },
  {
    name: 'read own session',
    method: 'GET',
    path: () => `/sessions/${mine}`,
    expect: { none: 401, bad: 401, all: 200, scoped: 200 },
  },
  {
    name: 'read other session',
    method: 'GET',
    path: () => `/sessions/${other}`,
    expect: { none: 401, bad: 401, all: 200, scoped: 403 },
  },
  {
    name: 'update other session',
    method: 'PUT',
    path: () => `/sessions/${other}`,
    body: { title: 'x' },
    expect: { none: 401, bad: 401, all: 200, scoped: 403 },
  },
  {
    name: 'sync other session',
    method: 'POST',
    path: () => `/sessions/${other}/sync`,
    body: { clientId: 'c', vector: {}, changes: [] },
    expect: { none: 401, bad: 401, all: 200, scoped: 403 },
  },
  {
    name: 'sync own session',
    method: 'POST',
    path: () => `/sessions/${mine}/sync`,
    body: { clientId: 'c', vector: {}, changes: [] },
    expect: { none: 401, bad: 401, all: 200, scoped: 200 },
  },
  {
    name: 'create run on other thread',
    method: 'POST',
    path: () => `/threads/${other}/runs`,
    body: { prompt: 'x' },
    expect: { none: 401, bad: 401, all: 201, scoped: 403 },
  },
  {
    name: 'read own run',
    method: 'GET',
    path: () => `/runs/${myRun}`,
    expect: { none: 401, bad: 401, all: 200, scoped: 200 },
  },
  {
    name: 'read other run',
    method: 'GET',
    path: () => `/runs/${otherRun}`,
    expect: { none: 401, bad: 401, all: 200, scoped: 403 },
  },
  {
    name: 'cancel other run',
    method: 'POST',
    path: () => `/runs/${otherRun}/cancel`,
    expect: { none: 401, bad: 401, all: 202, scoped: 403 },
  },
  {
    name: 'answer on other run',
    method: 'POST',
    path: () => `/runs/${waitingRun}/approvals/ap1`,
    body: { outcome: 'cancelled' },
    expect: { none: 401, bad: 401, all: 202, scoped: 403 },
  },
  {
    name: 'stream of other thread',
    method: 'GET',
    path: () => `/threads/${other}/events`,
    expect: { none: 401, bad: 401, all: 200, scoped: 403 },
  },
  {
    name: 'execute on other thread',
    method: 'POST',
    path: () => `/sessions/${other}/execute`,
    body: { prompt: 'x' },
    expect: { none: 401, bad: 401, all: 200, scoped: 403 },
  },
];

describe('auth matrix', () => {
  const matrix = routes.flatMap((r) =>
    (Object.keys(r.expect) as Who[]).map((who) => ({ ...r, who, status: r.expect[who] })),
  );
  it.each(matrix)('$name as $who → $status', async (c) => {
    const headers: Record<string, string> = { ...auth(tokenOf[c.who]) };
    if (c.body !== undefined) headers['content-type'] = 'application/json';
    const controller = new AbortController();
    const res = await fetch(`${t.api}${c.path()}`, {
      method: c.method,
      headers,
      body: c.body === undefined ? undefined : JSON.stringify(c.body),
      signal: controller.signal,
    });
    expect(res.status).toBe(c.status);
    controller.abort();
  });

  it('a scoped token lists only the sessions in its scope', async () => {
    const res = await fetch(`${t.api}/sessions?limit=200`, { headers: auth(SCOPED) });
    const ids = (await readJson(res)).sessions.map((s: { id: string }) => s.id);
    expect(ids).toEqual([mine]);
  });

  it('the SSE stream of a thread in scope works with the scoped token', async () => {
    const reader = new SseReader(`${t.api}/threads/${mine}/events`, { headers: auth(SCOPED) });
    await reader.waitFor((r) => r.events.some((e) => e.type === 'turn.completed'));
    reader.close();
  });

  it('binding a non-loopback address without tokens is refused', () => {
    expect(() => assertBindAllowed('0.0.0.0', [])).toThrow(/tokens/);
    expect(() => assertBindAllowed('127.0.0.1', [])).not.toThrow();
    expect(() => assertBindAllowed('0.0.0.0', [{ token: 'x', threads: '*' }])).not.toThrow();
  });
});
