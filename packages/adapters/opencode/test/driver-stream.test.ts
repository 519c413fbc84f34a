import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonValue } from '@agentlane/contract';
import type { TurnIO } from '@agentlane/engine-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createDriver } from '../src';
import { EventFeed, eventUrl } from '../src/driver/event-feed';
import { CrossOriginRedirect, originBoundFetch } from '../src/driver/guarded-fetch';

type Mode = 'idle-no-busy' | 'close-stream' | 'close-then-refuse' | 'normal' | 'huge-event';
const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const sse = (type: string, properties: object) => `data: ${JSON.stringify({ type, properties })}\n\n`;

/** A small OpenCode: one session, the turn's events chosen by `mode`. */
async function fakeOpenCode(mode: Mode) {
  const streams = new Set<http.ServerResponse>();
  const stats = { eventConnections: 0 };
  const send = (text: string) => {
    for (const res of streams) res.write(text);
  };
  const url = await listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/event') {
      stats.eventConnections++;
      if (mode === 'close-then-refuse' && stats.eventConnections > 1) return res.writeHead(503).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse('server.connected', {}));
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    if (path === '/session' && req.method === 'POST') return json({ id: 'ses_1', directory: '/w', time: {} });
    if (path === '/session/ses_1') return json({ id: 'ses_1', directory: '/w', time: {} });
    if (path === '/session/ses_1/prompt_async') {
      res.writeHead(204).end();
      const S = 'ses_1';
      setTimeout(() => {
        if (mode === 'idle-no-busy') {
          send(sse('session.status', { sessionID: S, status: { type: 'idle' } }));
          return;
        }
        send(sse('session.status', { sessionID: S, status: { type: 'busy' } }));
        // One event past the cap (16 MiB), in pieces as a server writes it, then the turn's end.
        if (mode === 'huge-event') {
          send(`data: {"type":"message.part.delta","properties":{"sessionID":"${S}","delta":"`);
          for (let i = 0; i < 17; i++) send('E'.repeat(1024 * 1024));
          send('"}}\n\n');
        }
        if (mode === 'normal' || mode === 'huge-event')
          send(sse('session.status', { sessionID: S, status: { type: 'idle' } }));
        else for (const s of streams) s.end();
      }, 20);
      return;
    }
    if (path === '/global/health') return json({ healthy: true, version: '0.0.0' });
    if (path === '/config/providers') return json({ providers: [], default: {} });
    res.writeHead(404).end();
  });
  return { url, stats };
}

function turnIO(frames: JsonValue[]): TurnIO {
  return {
    emit: (frame: JsonValue) => frames.push(frame),
    signal: new AbortController().signal,
    awaitApproval: async () => ({ outcome: 'cancelled' }),
    awaitQuestion: async () => ({ outcome: 'cancelled' }),
  } as unknown as TurnIO;
}

async function openRun(url: string) {
  const driver = createDriver({ url, settleMs: 0, idleGraceMs: 50, reconnectDelaysMs: [0, 0] });
  const session = await driver.openSession({
    threadId: 'thr',
    workDir: '/w',
    generation: 1,
    emit: () => undefined,
  } as Parameters<typeof driver.openSession>[0]);
  return { driver, session };
}

describe('OpenCode driver against a hostile event stream', () => {
  it('ends a turn whose idle came without busy (after the prompt was accepted and a grace)', async () => {
    const { url } = await fakeOpenCode('idle-no-busy');
    const { driver, session } = await openRun(url);
    const outcome = await session.runTurn({ prompt: 'hi' } as never, turnIO([]));
    expect(outcome.outcome).toBe('completed');
    await driver.dispose();
  });

  it('reconnects an event stream the server ended (the SDK stopped reading silently)', async () => {
    const { url, stats } = await fakeOpenCode('close-stream');
    const feed = await EventFeed.open({ baseUrl: url, directory: '/w', reconnectDelaysMs: [0, 0, 0] });
    const seen: string[] = [];
    const reconnected = new Promise<void>((resolve) => feed.onReconnect(resolve));
    feed.on((event) => seen.push(String(event.type)));
    const before = stats.eventConnections;
    await fetch(`${url}/session/ses_1/prompt_async`, { method: 'POST' }); // busy, then the streams end
    await reconnected;
    expect(stats.eventConnections).toBe(before + 1);
    expect(feed.failure).toBeNull();
    expect(seen).toContain('session.status');
    feed.close();
  });

  it('fails the running turn with a clear error when the stream cannot be re-established', async () => {
    const { url, stats } = await fakeOpenCode('close-then-refuse');
    const { driver, session } = await openRun(url);
    await expect(session.runTurn({ prompt: 'hi' } as never, turnIO([]))).rejects.toThrow(
      /event stream ended .* could not be re-established after 2 attempts/,
    );
    expect(stats.eventConnections).toBe(3);
    // the session is spent: a second run fails at once instead of hanging
    await expect(session.runTurn({ prompt: 'again' } as never, turnIO([]))).rejects.toThrow(/re-established/);
    await driver.dispose();
  });

  it('skips an event over the size cap (its warning to the listener) and goes on with the next', async () => {
    let stream: http.ServerResponse | undefined;
    const url = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse('server.connected', {}));
      stream = res;
    });
    const feed = await EventFeed.open({ baseUrl: url, directory: '/w', maxEventChars: 1000 });
    const skipped: unknown[] = [];
    feed.onSkipped((frame) => skipped.push(frame));
    const after = new Promise<void>((resolve) => feed.on((e) => e.type === 'after' && resolve()));
    stream?.write(`data: {"type":"x","properties":{"d":"${'E'.repeat(5000)}"}}\n\n`);
    stream?.write(sse('after', {}));
    await after;
    expect(skipped).toEqual([
      {
        harness: 'frame.dropped',
        reason: 'frame.too_large',
        message: expect.stringMatching(/larger than 1000 characters was skipped/),
        detail: { maxEventChars: 1000, charsSeen: expect.any(Number) },
      },
    ]);
    expect(feed.failure).toBeNull();
    feed.close();
  });

  it('an event over 16 MiB is one warning of its turn; the next turn on the stream works', async () => {
    const { url, stats } = await fakeOpenCode('huge-event');
    const { driver, session } = await openRun(url);
    const first: JsonValue[] = [];
    expect(await session.runTurn({ prompt: 'one' } as never, turnIO(first))).toEqual({
      outcome: 'completed',
    });
    // In the skipped event's place: one frame.dropped harness frame, which the translator makes a warning.
    const dropped = first.filter((f) => 'harness' in (f as object));
    expect(dropped).toHaveLength(1);
    const ctx = { threadId: 'thr', runId: 'r', turnId: 'r', provider: 'opencode' };
    const record = { runId: 'r', nativeSeq: 1, receivedAt: '', frame: dropped[0] ?? null };
    const { events } = driver.translator.translate(record, driver.translator.initialState(ctx), ctx);
    expect(events.map((e) => e.draft)).toMatchObject([
      {
        kind: 'harness.warning',
        payload: { code: 'harness.frame_dropped', detail: { reason: 'frame.too_large' } },
      },
    ]);
    const second: JsonValue[] = [];
    expect(await session.runTurn({ prompt: 'two' } as never, turnIO(second))).toEqual({
      outcome: 'completed',
    });
    expect(second.filter((f) => 'harness' in (f as object))).toHaveLength(1);
    // One connection throughout: the stream was never given up.
    expect(stats.eventConnections).toBe(1);
    await driver.dispose();
  });
});

describe('origin-bound fetch', () => {
  it('refuses a redirect to another origin, and the other origin receives nothing', async () => {
    const reached: string[] = [];
    const other = await listen((req, res) => {
      reached.push(String(req.url));
      res.end('{}');
    });
    const url = await listen((req, res) => {
      if (req.url === '/same') return res.writeHead(307, { location: '/landing' }).end();
      if (req.url === '/landing') return res.end('landed');
      res.writeHead(307, { location: `${other}/landing` }).end();
    });
    const guarded = originBoundFetch(url);
    await expect(
      guarded(`${url}/session/x/prompt_async`, { method: 'POST', body: 'secret' }),
    ).rejects.toThrow(CrossOriginRedirect);
    expect(reached).toEqual([]);
    expect(await (await guarded(`${url}/same`, { method: 'POST', body: 'b' })).text()).toBe('landed');
  });
});

describe('eventUrl', () => {
  it('keeps the base URL path (a server behind a path prefix), as the SDK does', () => {
    expect(eventUrl('http://127.0.0.1:4096', '/w').toString()).toBe(
      'http://127.0.0.1:4096/event?directory=%2Fw',
    );
    expect(eventUrl('http://h:1/prefix/', '/w').toString()).toBe('http://h:1/prefix/event?directory=%2Fw');
    expect(eventUrl('http://h:1/a/b', 'd').pathname).toBe('/a/b/event');
  });
});
