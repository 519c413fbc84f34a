import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startTestServer, type TestServer } from './support/harness';

/** Opens a thread stream; `close()` ends it and resolves once the server has let it go. */
function openStream(t: TestServer, thread: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = fetch(`${t.api}/threads/${thread}/events`, { headers, signal: controller.signal });
  return {
    res,
    async close() {
      const before = t.server.context.connections.size;
      controller.abort();
      while (t.server.context.connections.size >= before) await new Promise((r) => setTimeout(r, 10));
    },
  };
}

describe('streams of clients without a token (loopback mode)', () => {
  let t: TestServer;
  let thread: string;
  beforeAll(async () => {
    t = await startTestServer({ limits: { maxStreamsPerToken: 2, maxLocalStreams: 5 } });
    thread = await t.createSession();
  });
  afterAll(async () => {
    await t.close();
  });

  it('are counted per client: its address, and the X-Agentlane-Client id it names', async () => {
    const open: ReturnType<typeof openStream>[] = [];
    const expectOpen = async (headers: Record<string, string> = {}) => {
      const stream = openStream(t, thread, headers);
      expect((await stream.res).status).toBe(200);
      open.push(stream);
      return stream;
    };
    const refused = async (headers: Record<string, string> = {}) => {
      const res = await fetch(`${t.api}/threads/${thread}/events`, { headers });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBeTruthy();
      return (await readJson(res)).error;
    };
    try {
      // Clients that do not name themselves share their address's budget, as every local client did.
      await expectOpen();
      await expectOpen();
      expect((await refused()).message).toBe('this client already holds 2 open streams');
      // A tab that names itself has a budget of its own: the others' streams do not exhaust it.
      const tab = await expectOpen({ 'x-agentlane-client': 'tab-1' });
      await expectOpen({ 'x-agentlane-client': 'tab-1' });
      expect((await refused({ 'x-agentlane-client': 'tab-1' })).code).toBe('rate_limited');
      await expectOpen({ 'x-agentlane-client': 'tool.cli:2' });
      // Ids are free to mint, so all clients without a token together stop at maxLocalStreams (5).
      expect((await refused({ 'x-agentlane-client': 'tab-3' })).message).toBe(
        'the clients without a token already hold 5 open streams',
      );
      await tab.close();
      open.splice(open.indexOf(tab), 1);
      await expectOpen({ 'x-agentlane-client': 'tab-3' });
    } finally {
      for (const stream of open) await stream.close();
    }
  });

  it('refuses an id outside the pattern with 400 naming the header', async () => {
    for (const id of ['', 'a b', 'x'.repeat(129), 'tab|1']) {
      const res = await fetch(`${t.api}/threads/${thread}/events`, { headers: { 'x-agentlane-client': id } });
      expect(res.status, JSON.stringify(id)).toBe(400);
      expect((await readJson(res)).error.field).toBe('headers.x-agentlane-client');
    }
  });
});

describe('streams of a token', () => {
  let t: TestServer;
  let thread: string;
  const auth = { authorization: 'Bearer stream-budget-token-0123456789' };
  beforeAll(async () => {
    t = await startTestServer({
      tokens: [{ token: 'stream-budget-token-0123456789', threads: '*' }],
      limits: { maxStreamsPerToken: 2 },
    });
    thread = await t.createSession(auth);
  });
  afterAll(async () => {
    await t.close();
  });

  it('share the token budget whatever X-Agentlane-Client says', async () => {
    const a = openStream(t, thread, { ...auth, 'x-agentlane-client': 'a' });
    const b = openStream(t, thread, { ...auth, 'x-agentlane-client': 'b' });
    try {
      expect((await a.res).status).toBe(200);
      expect((await b.res).status).toBe(200);
      const c = await fetch(`${t.api}/threads/${thread}/events`, {
        headers: { ...auth, 'x-agentlane-client': 'c' },
      });
      expect(c.status).toBe(429);
      expect((await readJson(c)).error.message).toBe('this token already holds 2 open streams');
    } finally {
      await a.close();
      await b.close();
    }
  });
});
