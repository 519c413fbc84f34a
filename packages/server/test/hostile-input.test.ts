import { connect } from 'node:net';
import { createMemorySaver } from '@agentlane/checkpoints';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyJson, postJson, readJson, startTestServer, type TestServer } from './support/harness';
import { pgAvailable, pgSchemaUrl } from './support/pg';

// Inputs that used to kill the process (a sync on PostgreSQL with a NUL in a key, a value nested 5,000 deep)
// or answer 500 (NUL bytes reaching PostgreSQL, deep metadata): each is a 400 naming the field, on both stores.

/** What the server answers a CONNECT with (Node hands CONNECT to a 'connect' listener, not to routes). */
function rawConnect(api: string): Promise<string> {
  const { hostname, port } = new URL(api);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.write(`CONNECT /api/harness/sessions HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`),
    );
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy());
  });
}

/** JSON text nested `levels` deep, built as text (JSON.stringify itself overflows on such a value). */
const deepJson = (levels: number): string => `${'{"a":'.repeat(levels)}"leaf"${'}'.repeat(levels)}`;

const deep = (levels: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

function hostileSuite(name: string, open: () => Promise<{ t: TestServer; drop?: () => Promise<void> }>) {
  describe(`hostile input on ${name}`, () => {
    let t: TestServer;
    let drop: (() => Promise<void>) | undefined;
    let thread: string;
    let run: string;
    beforeAll(async () => {
      ({ t, drop } = await open());
      thread = await t.createSession();
      run = (await postJson(`${t.api}/threads/${thread}/runs`, { prompt: 'hello' })).json.run.runId;
    });
    afterAll(async () => {
      await t?.close();
      await drop?.();
    });

    const expect400 = (res: { status: number; json: AnyJson }, field: string) => {
      expect(res.status, JSON.stringify(res.json)).toBe(400);
      expect(res.json.error.code).toBe('invalid_request');
      expect(res.json.error.field).toBe(field);
    };
    const get = async (path: string) => {
      const res = await fetch(`${t.api}${path}`);
      return { status: res.status, json: await readJson(res) };
    };
    const alive = async () => expect((await fetch(`${t.api}/health`)).status).toBe(200);

    it('sync: a NUL in a key or a value, or a value 5,000 levels deep, is a 400 and the server lives', async () => {
      const change = (key: string, value: unknown) => ({
        clientId: 'c1',
        vector: { c1: 1 },
        changes: [{ key, value, version: 1, vector: { c1: 1 } }],
      });
      const sync = (body: unknown) => postJson(`${t.api}/sessions/${thread}/sync`, body);
      expect400(await sync(change('k\u0000', 'v')), 'body.changes[0].key');
      expect400(await sync(change('k', { 'x\u0000y': 1 })), 'body.changes[0].value["x\\u0000y"]');
      const raw = JSON.stringify(change('k', 'PLACEHOLDER')).replace('"PLACEHOLDER"', deepJson(5000));
      const res = await fetch(`${t.api}/sessions/${thread}/sync`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      });
      const tooDeep = { status: res.status, json: await readJson(res) };
      expect(tooDeep.status).toBe(400);
      expect(tooDeep.json.error.field).toMatch(/^body\.changes\[0\]\.value/);
      await alive();
      // The session still syncs normally afterwards.
      expect((await sync(change('k', { ok: true }))).status).toBe(200);
    });

    it('NUL bytes in every stored or queried input are a 400 naming the field', async () => {
      const post = (path: string, body: unknown) => postJson(`${t.api}${path}`, body);
      expect400(await post('/sessions', { engine: 'scripted', title: 'a\u0000b' }), 'body.title');
      expect400(await post('/sessions', { engine: 'scripted', workDir: '/tmp/a\u0000b' }), 'body.workDir');
      expect400(await post('/sessions', { engine: 'scripted\u0000' }), 'body.engine');
      expect400(await post(`/threads/${thread}/runs`, { prompt: 'p\u0000' }), 'body.prompt');
      const put = await fetch(`${t.api}/sessions/${thread}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: '\u0000' }),
      });
      expect400({ status: put.status, json: await readJson(put) }, 'body.title');
      expect400(await get('/sessions?search=a%00'), 'query.search');
      expect400(await get('/sessions?engine=a%00'), 'query.engine');
      expect400(await get('/sessions?cursor=a%00'), 'query.cursor');
      expect400(await get('/sessions/a%00b/audit'), 'params.id');
      expect400(await get(`/sessions/${thread}/checkpoints?namespace=%00`), 'query.namespace');
      expect400(await get(`/sessions/${thread}/checkpoints/a%00`), 'params.checkpointId');
      expect400(
        await post(`/runs/${run}/questions/q1`, { outcome: 'answered', text: 'x\u0000' }),
        'body.text',
      );
      await alive();
    });

    it('numbers beyond a double, lone surrogates and a bad fork point are a 400 naming the field', async () => {
      const raw = async (method: string, path: string, body: string) => {
        const res = await fetch(`${t.api}${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          body,
        });
        return { status: res.status, json: await readJson(res) };
      };
      // 1e400 parses as Infinity, which every serializer writes as null: refused, not silently changed.
      expect400(
        await raw('POST', '/sessions', '{"engine":"scripted","metadata":{"n":1e400}}'),
        'body.metadata.n',
      );
      expect400(
        await raw('POST', `/sessions/${thread}/sync`, '{"clientId":"e","vector":{"e":1e400},"changes":[]}'),
        'body.vector.e',
      );
      // A lone surrogate has no UTF-8 form: a text column would store U+FFFD.
      expect400(await raw('POST', '/sessions', '{"engine":"scripted","title":"\\ud800"}'), 'body.title');
      expect400(await raw('POST', `/threads/${thread}/runs`, '{"prompt":"retry \\udc00"}'), 'body.prompt');
      expect400(await get('/sessions?cursor=zzz'), 'query.cursor');
      const notUtf8 = await fetch(`${t.api}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat([
          Buffer.from('{"engine":"scripted","title":"'),
          Buffer.from([0xff, 0xfe]),
          Buffer.from('"}'),
        ]),
      });
      const notUtf8Body = await readJson(notUtf8);
      expect(notUtf8.status).toBe(400);
      expect(notUtf8Body.error).toMatchObject({ field: 'body', message: expect.stringMatching(/UTF-8/) });
      expect(await rawConnect(t.api)).toMatch(/^HTTP\/1\.1 404 [\s\S]*"code":"not_found"/);
      // HEAD on the stream route is no stream held open: a 404 like any method a route does not answer.
      const head = await fetch(`${t.api}/threads/${thread}/events`, { method: 'HEAD' });
      expect(head.status).toBe(404);
      const fork = await postJson(`${t.api}/sessions/${thread}/fork`, { checkpointId: '../../x' });
      expect(fork.status, JSON.stringify(fork.json)).toBeLessThan(500);
      expect400(fork, 'body.checkpointId');
      await alive();
    });

    it('echoed input has its control and bidi characters escaped; tricky but valid JSON parses as before', async () => {
      // U+202E would show the rest of the id reversed; U+0007 rings a terminal's bell.
      const res = await get('/artifacts/abc%E2%80%AEdef%07%C2%85');
      expect(res.status).toBe(404);
      expect(res.json.error.message).toBe('artifact "abc\\u202edef\\u0007\\u0085" not found');
      const key = await postJson(`${t.api}/sessions`, {
        engine: 'scripted',
        metadata: { 'a\u2066b': 1, 'c\u0000': 2 },
      });
      expect400(key, 'body.metadata["c\\u0000"]');
      const dup = await fetch(`${t.api}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"engine":"scripted","metadata":{"a\u202eb":1,"a\\u202eb":2}}',
      });
      const dupError = (await readJson(dup)).error;
      expect([dup.status, dupError.field]).toEqual([400, 'body.metadata["a\\u202eb"]']);
      expect(`${dupError.message} ${dupError.field}`).not.toMatch(/[\p{Cc}\p{Bidi_Control}]/u);
      // Braces, brackets, colons, commas, quotes and escapes inside strings are text, not structure.
      const body = {
        engine: 'scripted',
        title: 'a"}{[],:\\b \\" \u00e9\ud83d\ude00',
        metadata: { 'k"}{': ['"', '\\', '}', { ']': '\\"{' }], 'k"}{2': { '': null }, e: '\\u0041' },
      };
      const created = await postJson(`${t.api}/sessions`, body);
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      expect([created.json.session.title, created.json.session.metadata]).toEqual([
        body.title,
        body.metadata,
      ]);
      expect((await get('/sessions?limit=100')).status).toBe(200);
      await alive();
    });

    it('sync work is bounded: vectors of 128 clients at most, 32 concurrent writes to a key', async () => {
      const sync = (body: unknown) => postJson(`${t.api}/sessions/${thread}/sync`, body);
      const wide = Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`c${i}`, 1]));
      expect400(await sync({ clientId: 'c0', vector: wide, changes: [] }), 'body.vector');
      // A vector naming writes this session never stored is refused: merged into every client's vector, it
      // would hide those writes when they come (and was how one request made 1,000 concurrent heads).
      expect400(
        await sync({
          clientId: 'p',
          vector: { p: 1, zz: 50 },
          changes: [{ key: 'K', value: 0, version: 1, vector: { p: 1, zz: 50 } }],
        }),
        'body.vector',
      );
      // Writes of different clients that saw none of each other are concurrent: up to the limit they stand
      // (and are reported); one more concurrent write of the key is refused.
      const blind = (id: string) =>
        sync({
          clientId: id,
          vector: { [id]: 1 },
          changes: [{ key: 'K', value: id, version: 1, vector: { [id]: 1 } }],
        });
      for (let i = 0; i < 32; i++) expect((await blind(`a${i}`)).status).toBe(200);
      const refused = await blind('a32');
      expect(refused.status, JSON.stringify(refused.json)).toBe(409);
      expect(refused.json.error.field).toBe('body.changes');
      // A write that has seen every head resolves them, and the session syncs normally again.
      const all = Object.fromEntries([...Array.from({ length: 32 }, (_, i) => [`a${i}`, 1]), ['r', 1]]);
      const resolved = await sync({
        clientId: 'r',
        vector: all,
        changes: [{ key: 'K', value: 'resolved', version: 1, vector: all }],
      });
      expect(resolved.status, JSON.stringify(resolved.json)).toBe(200);
      expect(resolved.json.conflicts.filter((c: { key: string }) => c.key === 'K')).toEqual([]);
      // One (client, version) is one write: twice in a sync is a 400; again with other content a 409; the
      // same content again is a harmless retry.
      const w = (key: string, value: number) => ({ key, value, version: 1, vector: { d: 1 } });
      expect400(
        await sync({ clientId: 'd', vector: { d: 1 }, changes: [w('a', 1), w('b', 2)] }),
        'body.changes[1].version',
      );
      expect((await sync({ clientId: 'd', vector: { d: 1 }, changes: [w('a', 1)] })).status).toBe(200);
      expect((await sync({ clientId: 'd', vector: { d: 1 }, changes: [w('a', 1)] })).status).toBe(200);
      const rewritten = await sync({ clientId: 'd', vector: { d: 1 }, changes: [w('a', 9)] });
      expect([rewritten.status, rewritten.json.error.field]).toEqual([409, 'body.changes[0].version']);
      await alive();
    });

    it('deep metadata is a 400, not a 500', async () => {
      const res = await postJson(`${t.api}/sessions`, { engine: 'scripted', metadata: deep(200) as object });
      expect(res.status).toBe(400);
      expect(res.json.error.field).toMatch(/^body\.metadata\.a/);
      // Within the bound it is stored as given.
      const ok = await postJson(`${t.api}/sessions`, { engine: 'scripted', metadata: deep(20) as object });
      expect(ok.status).toBe(201);
    });
  });
}

hostileSuite('SQLite', async () => ({ t: await startTestServer({ checkpoints: createMemorySaver() }) }));

const withPg = await pgAvailable();
if (withPg) {
  hostileSuite('PostgreSQL', async () => {
    const { url, drop } = pgSchemaUrl('server_hostile');
    return { t: await startTestServer({ checkpoints: createMemorySaver() }, { dbPath: url }), drop };
  });
}
