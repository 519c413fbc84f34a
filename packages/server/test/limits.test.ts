import { connect, type Socket } from 'node:net';
import { DEFAULT_MAX_CONCURRENT_RUNS } from '@agentlane/lane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../src/limits';
import { postJson, readJson, startTestServer, type TestServer } from './support/harness';
import { rawRequest } from './support/raw-http';

// Slow and greedy clients: timeouts end what trickles, caps bound what one client (or token) holds.

describe('timeouts and the connection cap', () => {
  let t: TestServer;
  let host: string;
  beforeAll(async () => {
    t = await startTestServer({
      limits: { requestTimeoutMs: 600, headersTimeoutMs: 400, connectionTimeoutMs: 1500, maxConnections: 4 },
    });
    host = new URL(t.url).host;
  });
  afterAll(async () => {
    await t.close();
  });

  it('a body shorter than its Content-Length ends with 408 in the error shape, not a hang', async () => {
    const res = await rawRequest(
      t.url,
      [
        `POST /api/harness/sessions HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"engine":`,
      ],
      5000,
    );
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body).error.code).toBe('request_timeout');
    expect(res.ms).toBeLessThan(3000);
  });

  it('headers trickled one byte at a time end at the headers timeout', async () => {
    const chunks: (string | number)[] = [];
    for (const ch of `GET /api/harness/health HTTP/1.1\r\nHost: ${host}\r\nX-Slow: ${'a'.repeat(40)}`)
      chunks.push(ch, 50);
    const res = await rawRequest(t.url, chunks, 5000);
    expect(res.ms).toBeLessThan(2500);
    if (res.status !== 0) expect(res.status).toBe(408);
  });

  it('a connection that never sends a byte is closed at the headers timeout', async () => {
    // Timed from the connection's establishment (a SYN the loaded kernel retransmits is not the server's
    // time), and given up after 10 s with what the client saw, instead of the test's own timeout.
    const seen = await new Promise<{
      connectedMs: number | null;
      closedAfterMs: number | null;
      error?: string;
    }>((resolve) => {
      const started = performance.now();
      let connectedAt: number | null = null;
      let error: string | undefined;
      const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
      const giveUp = setTimeout(() => {
        socket.destroy();
        resolve({
          connectedMs: connectedAt === null ? null : connectedAt - started,
          closedAfterMs: null,
          error,
        });
      }, 10_000);
      socket.on('connect', () => {
        connectedAt = performance.now();
      });
      // Flowing, so that the server's FIN is read and seen (a paused socket that is never read may never
      // emit 'end', nor close): the server ending its side is what is observed, by 'end' or by 'close'.
      socket.resume();
      const ended = () => {
        clearTimeout(giveUp);
        const now = performance.now();
        socket.destroy();
        resolve({
          connectedMs: connectedAt === null ? null : connectedAt - started,
          closedAfterMs: now - (connectedAt ?? started),
          error,
        });
      };
      socket.once('end', ended);
      socket.once('close', ended);
      socket.on('error', (err) => {
        error = err.message;
      });
    });
    expect(seen.closedAfterMs, JSON.stringify(seen)).not.toBeNull();
    expect(seen.closedAfterMs as number, JSON.stringify(seen)).toBeLessThan(2000);
  });

  it('connections past maxConnections are dropped; the server serves again once they go', async () => {
    const sockets: Socket[] = [];
    const closed: boolean[] = [];
    for (let i = 0; i < 6; i++) {
      const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
      const index = i;
      closed[index] = false;
      socket.on('close', () => {
        closed[index] = true;
      });
      socket.on('error', () => {});
      sockets.push(socket);
      await new Promise((r) => socket.once('connect', r));
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(closed.filter(Boolean).length).toBeGreaterThanOrEqual(2);
    for (const s of sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await fetch(`${t.api}/health`)).status).toBe(200);
  });
});

describe('default run slots', () => {
  it('one token can take at most half of the run slots of a process (approval waits cannot starve other tokens)', () => {
    expect(DEFAULT_LIMITS.maxRunsPerToken * 2).toBeLessThanOrEqual(DEFAULT_MAX_CONCURRENT_RUNS);
  });
});

describe('per-token limits', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(
      { limits: { maxStreamsPerToken: 2, maxRunsPerToken: 2, requestsPerSecond: 5, requestBurst: 40 } },
      // Runs stay queued: no process executes them, so they hold their slots.
      { execute: false },
    );
  });
  afterAll(async () => {
    await t.close();
  });

  it('a third stream of the same token is 429 with Retry-After; closing one frees its slot', async () => {
    const thread = await t.createSession();
    const open = () => {
      const controller = new AbortController();
      return { controller, res: fetch(`${t.api}/threads/${thread}/events`, { signal: controller.signal }) };
    };
    const a = open();
    const b = open();
    expect((await a.res).status).toBe(200);
    expect((await b.res).status).toBe(200);
    const c = await fetch(`${t.api}/threads/${thread}/events`);
    expect(c.status).toBe(429);
    expect(c.headers.get('retry-after')).toBeTruthy();
    expect((await readJson(c)).error.code).toBe('rate_limited');
    a.controller.abort();
    await new Promise((r) => setTimeout(r, 200));
    const d = open();
    expect((await d.res).status).toBe(200);
    b.controller.abort();
    d.controller.abort();
  });

  it('runs queued or running per token are capped (approval waits cannot starve the process)', async () => {
    const thread = await t.createSession();
    expect((await postJson(`${t.api}/threads/${thread}/runs`, { prompt: 'one' })).status).toBe(201);
    expect((await postJson(`${t.api}/threads/${thread}/runs`, { prompt: 'two' })).status).toBe(201);
    const third = await postJson(`${t.api}/threads/${thread}/runs`, { prompt: 'three' });
    expect(third.status).toBe(429);
    expect(third.json.error.code).toBe('rate_limited');
  });

  it('requests past the burst are 429 with Retry-After, and the bucket refills', async () => {
    let limited: Response | undefined;
    for (let i = 0; i < 60 && !limited; i++) {
      const res = await fetch(`${t.api}/sessions?limit=1`);
      if (res.status === 429) limited = res;
      else await res.arrayBuffer();
    }
    expect(limited?.status).toBe(429);
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 400));
    expect((await fetch(`${t.api}/sessions?limit=1`)).status).toBe(200);
  });
});

describe('Host check in loopback-only mode (no tokens)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ allowedHosts: ['agentlane.internal'] });
  });
  afterAll(async () => {
    await t.close();
  });

  const withHost = async (hostHeader: string) => {
    const res = await rawRequest(t.url, [
      `GET /api/harness/sessions HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`,
    ]);
    return res;
  };

  it('refuses a DNS-rebinding Host with 403 and accepts loopback names and configured hosts', async () => {
    const port = new URL(t.url).port;
    const rebinding = await withHost(`attacker.example:${port}`);
    expect(rebinding.status).toBe(403);
    expect(JSON.parse(rebinding.body).error.field).toBe('headers.host');
    const create = await rawRequest(t.url, [
      `POST /api/harness/sessions HTTP/1.1\r\nHost: attacker.example\r\nContent-Type: application/json\r\nContent-Length: 37\r\nConnection: close\r\n\r\n{"engine":"scripted","workDir":"/"} `,
    ]);
    expect(create.status).toBe(403);
    // Two Host headers are a 400 (RFC 9112), whatever they say.
    const twice = await rawRequest(t.url, [
      `GET /api/harness/sessions HTTP/1.1\r\nHost: localhost:${port}\r\nHost: attacker.example\r\nConnection: close\r\n\r\n`,
    ]);
    expect([twice.status, JSON.parse(twice.body).error.field]).toEqual([400, 'headers.host']);
    // Two Authorization headers: Node would keep the first, so which credential counted depended on order.
    const twoTokens = await rawRequest(t.url, [
      `GET /api/harness/sessions HTTP/1.1\r\nHost: localhost:${port}\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\nConnection: close\r\n\r\n`,
    ]);
    expect([twoTokens.status, JSON.parse(twoTokens.body).error.field]).toEqual([
      400,
      'headers.authorization',
    ]);
    // No Host at all in HTTP/1.1 is a JSON 400 too (Node's own answer would be an empty 400); HTTP/1.0 has no
    // Host requirement, so there it is only the loopback check's 403.
    const none = await rawRequest(t.url, ['GET /api/harness/sessions HTTP/1.1\r\nConnection: close\r\n\r\n']);
    expect(none.headers['content-type']).toMatch(/^application\/json/);
    expect([none.status, JSON.parse(none.body).error]).toEqual([
      400,
      { code: 'invalid_request', message: expect.stringMatching(/Host/), field: 'headers.host' },
    ]);
    const old = await rawRequest(t.url, ['GET /api/harness/sessions HTTP/1.0\r\n\r\n']);
    expect([old.status, JSON.parse(old.body).error.field]).toEqual([403, 'headers.host']);
    // A body in a coding the server does not decode, or JSON in another charset, is 415 naming the header.
    for (const [header, field] of [
      ['Content-Encoding: gzip', 'headers.content-encoding'],
      ['Content-Type: application/json; charset=latin1', 'headers.content-type'],
    ] as const) {
      const body = '{"engine":"scripted"}';
      const res = await rawRequest(t.url, [
        `POST /api/harness/sessions HTTP/1.1\r\nHost: localhost:${port}\r\n${header.startsWith('Content-Type') ? '' : 'Content-Type: application/json\r\n'}${header}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      ]);
      expect([res.status, JSON.parse(res.body).error.field], header).toEqual([415, field]);
    }
    // A loopback name followed by anything but a port is not a loopback Host.
    for (const bad of [`127.0.0.1:${port}@attacker.example`, 'localhost.attacker.example', 'localhost/x']) {
      expect((await withHost(bad)).status, bad).toBeGreaterThanOrEqual(400);
    }
    for (const ok of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'agentlane.internal']) {
      expect((await withHost(ok)).status, ok).toBe(200);
    }
  });
});
