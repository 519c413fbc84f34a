import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, readJson, startTestServer, type TestServer } from './support/harness';

let t: TestServer;
let thread: string;
let otherThread: string;
let run: string;
beforeAll(async () => {
  t = await startTestServer({ bodyLimitBytes: 64 * 1024 });
  thread = await t.createSession();
  otherThread = await t.createSession();
  const res = await fetch(`${t.api}/threads/${thread}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'k1' },
    body: JSON.stringify({ prompt: 'hello' }),
  });
  run = (await readJson(res)).run.runId;
});
afterAll(async () => {
  await t.close();
});

interface Case {
  name: string;
  method: string;
  path: () => string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  status: number;
  field?: string;
  message?: RegExp;
}

/** Numbers in a query string are decimal digits: each of these is refused, not read as Number() would. */
const notDecimal = ['1e2', '0x10', '%2B5', '05', '%205', '5.0', '-0', ''].map(
  (v): Case => ({
    name: `list: limit=${v}`,
    method: 'GET',
    path: () => `/sessions?limit=${v}`,
    status: 400,
    field: 'query.limit',
    message: /decimal digits/,
  }),
);

const big = 'x'.repeat(70 * 1024);

const cases: Case[] = [
  // GET /sessions
  {
    name: 'list: limit not a number',
    method: 'GET',
    path: () => '/sessions?limit=abc',
    status: 400,
    field: 'query.limit',
  },
  ...notDecimal,
  // Bracketed names, as some query encoders write arrays and objects: before, the stream replayed from 0.
  ...['after[]=3', 'after[a]=3', 'after[0]=3'].map(
    (q): Case => ({
      name: `stream: ${q}`,
      method: 'GET',
      path: () => `/threads/${thread}/events?${q}`,
      status: 400,
      field: 'query.after',
      message: /bracketed/,
    }),
  ),
  {
    name: 'frames: after in exponent notation',
    method: 'GET',
    path: () => `/sessions/${thread}/runs/${run}/frames?after=1e1`,
    status: 400,
    field: 'query.after',
  },
  {
    name: 'frames: limit in hex',
    method: 'GET',
    path: () => `/sessions/${thread}/runs/${run}/frames?limit=0x10`,
    status: 400,
    field: 'query.limit',
  },
  {
    name: 'checkpoints: limit in exponent notation',
    method: 'GET',
    path: () => `/sessions/${thread}/checkpoints?limit=1e1`,
    status: 400,
    field: 'query.limit',
  },
  {
    name: 'list: limit too large',
    method: 'GET',
    path: () => '/sessions?limit=100000',
    status: 400,
    field: 'query.limit',
  },
  // POST /sessions
  {
    name: 'create: engine missing',
    method: 'POST',
    path: () => '/sessions',
    body: {},
    status: 400,
    field: 'body.engine',
  },
  {
    name: 'create: unknown engine',
    method: 'POST',
    path: () => '/sessions',
    body: { engine: 'nope' },
    status: 400,
    field: 'body.engine',
  },
  {
    name: 'create: a key twice',
    method: 'POST',
    path: () => '/sessions',
    raw: '{"engine":"nope","engine":"scripted"}',
    status: 400,
    field: 'body.engine',
    message: /"engine" appears twice/,
  },
  {
    name: 'create: a key twice in nested metadata, once spelled with an escape',
    method: 'POST',
    path: () => '/sessions',
    raw: '{"engine":"scripted","metadata":{"a":[1,{"k":1,"\\u006b":2}]}}',
    status: 400,
    field: 'body.metadata.a[1].k',
  },
  {
    name: 'create: engine wrong type',
    method: 'POST',
    path: () => '/sessions',
    body: { engine: 5 },
    status: 400,
    field: 'body.engine',
  },
  {
    name: 'create: relative workDir',
    method: 'POST',
    path: () => '/sessions',
    body: { engine: 'scripted', workDir: 'rel/x' },
    status: 400,
    field: 'body.workDir',
  },
  {
    name: 'create: unknown field',
    method: 'POST',
    path: () => '/sessions',
    body: { engine: 'scripted', bogus: 1 },
    status: 400,
    field: 'body.bogus',
  },
  {
    name: 'create: malformed JSON',
    method: 'POST',
    path: () => '/sessions',
    raw: '{"engine":',
    status: 400,
    field: 'body',
  },
  {
    name: 'create: too large',
    method: 'POST',
    path: () => '/sessions',
    body: { engine: 'scripted', title: big },
    status: 413,
    field: 'body',
  },
  // GET|PUT|DELETE /sessions/:id
  {
    name: 'get: unknown id',
    method: 'GET',
    path: () => '/sessions/unknown-id',
    status: 404,
    field: 'params.id',
    message: /^session "unknown-id" not found$/,
  },
  { name: 'get: bad id', method: 'GET', path: () => '/sessions/bad%20id', status: 400, field: 'params.id' },
  {
    name: 'audit: bad id',
    method: 'GET',
    path: () => '/sessions/bad%20id/audit',
    status: 400,
    field: 'params.id',
  },
  {
    name: 'checkpoints: bad id',
    method: 'GET',
    path: () => '/sessions/bad%20id/checkpoints',
    status: 400,
    field: 'params.id',
  },
  {
    name: 'put: unknown id',
    method: 'PUT',
    path: () => '/sessions/unknown-id',
    body: { title: 'x' },
    status: 404,
    field: 'params.id',
  },
  {
    name: 'put: title wrong type',
    method: 'PUT',
    path: () => `/sessions/${thread}`,
    body: { title: 5 },
    status: 400,
    field: 'body.title',
  },
  {
    name: 'put: stale generation',
    method: 'PUT',
    path: () => `/sessions/${thread}`,
    body: { expectedGeneration: 99 },
    status: 409,
    field: 'body.expectedGeneration',
  },
  {
    name: 'put: a generation JSON cannot carry exactly',
    method: 'PUT',
    path: () => `/sessions/${thread}`,
    body: { expectedGeneration: 2 ** 53 },
    status: 400,
    field: 'body.expectedGeneration',
  },
  {
    name: 'delete: unknown id',
    method: 'DELETE',
    path: () => '/sessions/unknown-id',
    status: 404,
    field: 'params.id',
  },
  // POST /sessions/:id/sync
  {
    name: 'sync: clientId missing',
    method: 'POST',
    path: () => `/sessions/${thread}/sync`,
    body: { vector: {}, changes: [] },
    status: 400,
    field: 'body.clientId',
  },
  {
    name: 'sync: negative vector entry',
    method: 'POST',
    path: () => `/sessions/${thread}/sync`,
    body: { clientId: 'a', vector: { a: -1 }, changes: [] },
    status: 400,
    field: 'body.vector.a',
  },
  {
    name: 'sync: change key missing',
    method: 'POST',
    path: () => `/sessions/${thread}/sync`,
    body: { clientId: 'a', vector: { a: 1 }, changes: [{ value: 1, version: 1, vector: { a: 1 } }] },
    status: 400,
    field: 'body.changes[0].key',
  },
  {
    name: 'sync: change vector disagrees',
    method: 'POST',
    path: () => `/sessions/${thread}/sync`,
    body: {
      clientId: 'a',
      vector: { a: 1 },
      changes: [{ key: 'k', value: 1, version: 1, vector: { a: 2 } }],
    },
    status: 400,
    field: 'body.changes[0].vector',
  },
  {
    name: 'sync: unknown session',
    method: 'POST',
    path: () => '/sessions/unknown-id/sync',
    body: { clientId: 'a', vector: {}, changes: [] },
    status: 404,
    field: 'params.id',
  },
  {
    name: 'sync: JSON sent as text/plain',
    method: 'POST',
    path: () => `/sessions/${thread}/sync`,
    headers: { 'content-type': 'text/plain' },
    body: { clientId: 'a', vector: {}, changes: [] },
    status: 415,
    field: 'headers.content-type',
    message: /^Content-Type "text\/plain" is not accepted/,
  },
  {
    name: 'sync: JSON sent as application/octet-stream',
    method: 'POST',
    path: () => `/sessions/${thread}/sync`,
    headers: { 'content-type': 'application/octet-stream' },
    body: { clientId: 'a', vector: {}, changes: [] },
    status: 415,
    field: 'headers.content-type',
  },
  {
    name: 'create: JSON sent as application/vnd.api+json',
    method: 'POST',
    path: () => '/sessions',
    headers: { 'content-type': 'application/vnd.api+json' },
    body: { engine: 'scripted' },
    status: 415,
    field: 'headers.content-type',
  },
  // POST /sessions/:id/execute
  {
    name: 'execute: prompt missing',
    method: 'POST',
    path: () => `/sessions/${thread}/execute`,
    body: {},
    status: 400,
    field: 'body.prompt',
  },
  {
    name: 'execute: unknown session',
    method: 'POST',
    path: () => '/sessions/unknown-id/execute',
    body: { prompt: 'x' },
    status: 404,
    field: 'params.id',
  },
  {
    name: 'execute: parent not of thread',
    method: 'POST',
    path: () => `/sessions/${thread}/execute`,
    body: { prompt: 'x', parentRunId: 'nope' },
    status: 400,
    field: 'body.parentRunId',
    message: /^parentRunId "nope" is not a run of this thread$/,
  },
  // runs
  {
    name: 'runs: prompt empty',
    method: 'POST',
    path: () => `/threads/${thread}/runs`,
    body: { prompt: '' },
    status: 400,
    field: 'body.prompt',
  },
  {
    name: 'runs: unknown thread',
    method: 'POST',
    path: () => '/threads/unknown-id/runs',
    body: { prompt: 'x' },
    status: 404,
    field: 'params.id',
  },
  {
    name: 'runs: idempotency key reused with another body',
    method: 'POST',
    path: () => `/threads/${thread}/runs`,
    headers: { 'idempotency-key': 'k1' },
    body: { prompt: 'different' },
    status: 409,
    field: 'headers.idempotency-key',
    message: /^Idempotency-Key "k1" was already used to create another run: .*another body/,
  },
  {
    name: 'runs: idempotency key reused on another session',
    method: 'POST',
    path: () => `/threads/${otherThread}/runs`,
    headers: { 'idempotency-key': 'k1' },
    body: { prompt: 'hello' },
    status: 409,
    field: 'headers.idempotency-key',
    message: /^Idempotency-Key "k1" was already used to create a run on another session;/,
  },
  {
    name: 'runs: stale generation',
    method: 'POST',
    path: () => `/threads/${thread}/runs`,
    body: { prompt: 'x', expectedGeneration: 99 },
    status: 409,
  },
  {
    name: 'runs: a generation JSON cannot carry exactly',
    method: 'POST',
    path: () => `/threads/${thread}/runs`,
    body: { prompt: 'x', expectedGeneration: 1e300 },
    status: 400,
    field: 'body.expectedGeneration',
  },
  { name: 'run: unknown id', method: 'GET', path: () => '/runs/unknown-id', status: 404, field: 'params.id' },
  {
    name: 'cancel: unknown id',
    method: 'POST',
    path: () => '/runs/unknown-id/cancel',
    status: 404,
    field: 'params.id',
  },
  {
    name: 'cancel: a body it would ignore',
    method: 'POST',
    path: () => `/runs/${run}/cancel`,
    body: { reason: 'x' },
    status: 400,
    field: 'body',
  },
  {
    name: 'approval: bad outcome',
    method: 'POST',
    path: () => `/runs/${run}/approvals/ap1`,
    body: { outcome: 'maybe' },
    status: 400,
    field: 'body.outcome',
  },
  {
    name: 'approval: selected without option',
    method: 'POST',
    path: () => `/runs/${run}/approvals/ap1`,
    body: { outcome: 'selected' },
    status: 400,
    field: 'body.optionId',
  },
  {
    name: 'approval: unknown run',
    method: 'POST',
    path: () => '/runs/unknown-id/approvals/ap1',
    body: { outcome: 'cancelled' },
    status: 404,
    field: 'params.id',
  },
  {
    name: 'question: bad choiceIds',
    method: 'POST',
    path: () => `/runs/${run}/questions/q1`,
    body: { outcome: 'answered', choiceIds: 'a' },
    status: 400,
    field: 'body.choiceIds',
  },
  {
    name: 'question: unknown run',
    method: 'POST',
    path: () => '/runs/unknown-id/questions/q1',
    body: { outcome: 'declined' },
    status: 404,
    field: 'params.id',
  },
  // thread stream
  {
    name: 'stream: bad after',
    method: 'GET',
    path: () => `/threads/${thread}/events?after=-1`,
    status: 400,
    field: 'query.after',
  },
  {
    name: 'stream: bad Last-Event-ID',
    method: 'GET',
    path: () => `/threads/${thread}/events`,
    headers: { 'last-event-id': 'abc' },
    status: 400,
    field: 'headers.last-event-id',
  },
  {
    name: 'stream: unknown thread',
    method: 'GET',
    path: () => '/threads/unknown-id/events',
    status: 404,
    field: 'params.id',
  },
  // artifacts
  {
    name: 'artifact: unknown id',
    method: 'GET',
    path: () => '/artifacts/unknown-id',
    status: 404,
    field: 'params.id',
  },
  // unknown route, known route with another method
  {
    name: 'unknown route',
    method: 'GET',
    path: () => '/nope?x=1',
    status: 404,
    field: 'url',
    message: /^no route GET "\/api\/harness\/nope"$/,
  },
  {
    name: 'known path, wrong method',
    method: 'PATCH',
    path: () => `/sessions/${thread}`,
    status: 404,
    field: 'method',
    message: /does not answer PATCH; it answers GET, HEAD, PUT, DELETE$/,
  },
];

describe('bad input gets a clear 4xx naming the field, never a 500', () => {
  it.each(cases)('$name → $status', async (c) => {
    const headers: Record<string, string> = { ...(c.headers ?? {}) };
    let body: string | undefined;
    if (c.raw !== undefined || c.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = c.raw ?? JSON.stringify(c.body);
    }
    const res = await fetch(`${t.api}${c.path()}`, { method: c.method, headers, body });
    const text = await res.text();
    expect(res.status, text).toBe(c.status);
    const json = JSON.parse(text);
    expect(json.error.code).toEqual(expect.any(String));
    expect(json.error.message).toEqual(expect.any(String));
    expect(text).not.toMatch(/at .*\.ts:\d+/);
    if (c.field) expect(json.error.field).toBe(c.field);
    if (c.message) expect(json.error.message).toMatch(c.message);
  });

  it('every route that takes a JSON body answers 415 naming headers.content-type for another media type', async () => {
    const doc = await readJson(await fetch(`${t.api}/openapi.json`));
    const routes = Object.entries(doc.paths as Record<string, Record<string, { requestBody?: unknown }>>)
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })))
      .filter((r) => r.op.requestBody !== undefined);
    expect(routes.length).toBeGreaterThan(8);
    for (const { path, method } of routes) {
      for (const type of ['text/plain', 'application/octet-stream', 'application/x-www-form-urlencoded']) {
        const url = `${t.url}${path.replace(/\{[^}]+\}/g, 'x')}`;
        const res = await fetch(url, { method, headers: { 'content-type': type }, body: '{}' });
        expect([res.status, (await readJson(res)).error?.field], `${method} ${path} ${type}`).toEqual([
          415,
          'headers.content-type',
        ]);
      }
    }
  });

  it('every route with a path id documents and answers 414 for an id past 512 characters; every route documents 431', async () => {
    const doc = await readJson(await fetch(`${t.api}/openapi.json`));
    const ops = Object.entries(
      doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>,
    ).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ path, method, op })));
    for (const { path, method, op } of ops) {
      expect(Object.keys(op.responses), `${method} ${path}`).toContain('431');
      if (path.includes('{')) expect(Object.keys(op.responses), `${method} ${path}`).toContain('414');
    }
    const long = await fetch(`${t.api}/sessions/${'a'.repeat(600)}`);
    expect([long.status, (await readJson(long)).error?.code]).toEqual([414, 'uri_too_long']);
  });

  it('run.cancel: an idempotency key reused for another run is 409 naming the header', async () => {
    const cancel = (runId: string) =>
      fetch(`${t.api}/runs/${runId}/cancel`, { method: 'POST', headers: { 'idempotency-key': 'c1' } });
    const second = (await postJson(`${t.api}/threads/${otherThread}/runs`, { prompt: 'x' })).json.run.runId;
    expect((await cancel(run)).status).toBe(202);
    expect((await cancel(run)).status).toBe(202);
    const res = await cancel(second);
    expect(res.status).toBe(409);
    expect((await readJson(res)).error).toEqual({
      code: 'idempotency_conflict',
      message: expect.stringMatching(/^Idempotency-Key "c1" was already used to cancel another run/),
      field: 'headers.idempotency-key',
    });
  });
});
