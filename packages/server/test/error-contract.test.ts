import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../src';
import { readJson, startTestServer, type TestServer } from './support/harness';
import { rawRequest } from './support/raw-http';

// Every answer, the framework's and the HTTP parser's included, is {error:{code,message,field?}} with a code
// of the status table whose status is the one sent.

let t: TestServer;
let host: string;
beforeAll(async () => {
  t = await startTestServer();
  host = new URL(t.url).host;
});
afterAll(async () => {
  await t.close();
});

const expectShape = (status: number, body: unknown) => {
  const error = (body as { error?: { code?: string; message?: unknown; field?: unknown } }).error;
  expect(error, JSON.stringify(body)).toBeDefined();
  expect(typeof error?.message).toBe('string');
  expect(ERROR_STATUS[error?.code as keyof typeof ERROR_STATUS], JSON.stringify(body)).toBe(status);
  if (error?.field !== undefined) expect(typeof error.field).toBe('string');
};

describe('the error contract holds for framework errors', () => {
  const cases: { name: string; path: string; method?: string; status: number; field?: string }[] = [
    { name: 'a path segment that does not decode', path: '/sessions/%zz', status: 400 },
    {
      name: 'an id of 101–128 characters (allowed by the schema)',
      path: `/sessions/${'a'.repeat(120)}`,
      status: 404,
      field: 'params.id',
    },
    { name: 'an id of 129–512 characters', path: `/sessions/${'a'.repeat(300)}`, status: 400 },
    { name: 'a parameter past the router limit', path: `/sessions/${'a'.repeat(600)}`, status: 414 },
    { name: 'an unknown route', path: '/nope', status: 404, field: 'url' },
    { name: 'an unknown path under a known one', path: '/sessions/a/b/c', status: 404, field: 'url' },
    {
      name: 'an unknown method on a known route',
      path: '/sessions',
      method: 'PATCH',
      status: 404,
      field: 'method',
    },
    { name: 'a HEAD on a stream route', path: '/threads/x/events', method: 'HEAD', status: 404 },
    { name: 'traversal in an id', path: '/sessions/..%2f..%2fetc', status: 400 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const res = await fetch(`${t.api}${c.path}`, { method: c.method ?? 'GET' });
      expect(res.status).toBe(c.status);
      if (c.method === 'HEAD') return;
      const body = await readJson(res);
      expectShape(c.status, body);
      if (c.field) expect(body.error.field).toBe(c.field);
    });
  }

  it('a body that is not JSON, an empty JSON body, a wrong media type, prototype pollution', async () => {
    const post = async (body: string, type = 'application/json') => {
      const res = await fetch(`${t.api}/sessions`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expectShape(res.status, await readJson(res));
      return res.status;
    };
    expect(await post('{nope')).toBe(400);
    expect(await post('')).toBe(400);
    expect(await post('<x/>', 'application/xml')).toBe(415);
    expect(await post('{"engine":"scripted"}', 'text/plain')).toBe(415);
    expect(await post('{"engine":"scripted"}', 'not a media type')).toBe(415);
    expect(await post('{"__proto__":{"polluted":1},"engine":"scripted"}')).toBe(400);
    expect(await post('{"constructor":{"prototype":{"polluted":1}},"engine":"scripted"}')).toBe(400);
  });

  it('bytes that are not UTF-8 are a 400 naming the body, chunked or with a Content-Length', async () => {
    // {"engine":"scripted","title":"<0xff 0xfe>"}: fetch sends a Buffer with its length, a stream chunked.
    const bytes = Buffer.concat([
      Buffer.from('{"engine":"scripted","title":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const chunked = new ReadableStream({
      start(c) {
        c.enqueue(bytes);
        c.close();
      },
    });
    for (const body of [bytes, chunked]) {
      const res = await fetch(`${t.api}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(400);
      const answer = (await readJson(res)) as { error: { field: string; message: string } };
      expect(answer.error.field).toBe('body');
      expect(answer.error.message).toMatch(/not valid UTF-8/);
    }
  });

  it('a wrong media type names headers.content-type, a wrong method names the methods the path answers', async () => {
    const res = await fetch(`${t.api}/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.api+json' },
      body: '{"engine":"scripted"}',
    });
    expect((await readJson(res)).error).toEqual({
      code: 'unsupported_media_type',
      message:
        'Content-Type "application/vnd.api+json" is not accepted: send the body as JSON with Content-Type: application/json',
      field: 'headers.content-type',
    });
    const body = '{"engine":"scripted"}';
    const untyped = await rawRequest(t.url, [
      `POST /api/harness/sessions HTTP/1.1\r\nHost: ${host}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ]);
    expect([untyped.status, JSON.parse(untyped.body).error.field]).toEqual([415, 'headers.content-type']);
    expect(JSON.parse(untyped.body).error.message).toMatch(/^a body without Content-Type is not accepted/);
    const patch = await fetch(`${t.api}/sessions`, { method: 'PATCH' });
    expect((await readJson(patch)).error).toEqual({
      code: 'not_found',
      message: '"/api/harness/sessions" does not answer PATCH; it answers GET, HEAD, POST',
      field: 'method',
    });
  });

  it('a prototype key is refused by name, not as bad JSON', async () => {
    const post = async (body: string) => {
      const res = await fetch(`${t.api}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return { status: res.status, error: (await readJson(res)).error };
    };
    expect(await post('{"__proto__":{"polluted":1},"engine":"scripted"}')).toEqual({
      status: 400,
      error: {
        code: 'invalid_request',
        message: expect.stringMatching(/"__proto__" is not allowed/),
        field: 'body.__proto__',
      },
    });
    // Spelled with escapes, nested in an array: the same key once decoded.
    const nested = await post('{"engine":"scripted","metadata":{"l":[{"\\u005f_proto__":{}}]}}');
    expect([nested.status, nested.error.field]).toEqual([400, 'body.metadata.l[0].__proto__']);
    const ctor = await post('{"constructor":{"prototype":{"polluted":1}},"engine":"scripted"}');
    expect([ctor.status, ctor.error.field]).toEqual([400, 'body.constructor.prototype']);
    expect(ctor.error.message).toMatch(/"prototype" is not allowed inside "constructor"/);
    // A key named constructor or prototype on its own is plain data.
    expect(
      (await post('{"engine":"scripted","metadata":{"constructor":{"x":1},"prototype":1}}')).status,
    ).toBe(201);
  });

  it('headers too large (431) and a request line that is not HTTP (400), straight from the parser', async () => {
    const big = await rawRequest(t.url, [
      `GET /api/harness/health HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]);
    expect(big.status).toBe(431);
    expect(big.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expectShape(431, JSON.parse(big.body));
    const garbage = await rawRequest(t.url, ['NOT HTTP AT ALL\r\n\r\n']);
    expect(garbage.status).toBe(400);
    expectShape(400, JSON.parse(garbage.body));
  });
});
