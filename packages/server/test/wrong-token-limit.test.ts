import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { guessSource, WrongTokenLimiter } from '../src/auth';
import { HttpError } from '../src/errors';
import { readJson, startTestServer, type TestServer } from './support/harness';

const GOOD = 'the-one-good-token-0123';
const WINDOW_MS = 60_000;
const MAX_WRONG = 3;

/** The limit's clock: moved by the tests, never read from the wall. */
let clock = 1_000_000;
const lines: string[] = [];
let t: TestServer;

beforeAll(async () => {
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  t = await startTestServer({
    tokens: [{ token: GOOD, threads: '*', name: 'admin' }],
    limits: { wrongTokensPerAddress: MAX_WRONG, wrongTokenWindowMs: WINDOW_MS },
    authClock: () => clock,
    loggerInstance: logger,
  });
});
afterAll(async () => {
  await t.close();
});
beforeEach(() => {
  // Every test starts after the windows of the one before have closed.
  clock += WINDOW_MS;
});

const get = (path: string, token?: string) =>
  fetch(`${t.api}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

describe('wrong bearer tokens per address', () => {
  it(`after ${MAX_WRONG} wrong tokens the address gets 429 with Retry-After, a correct token too, until the window passes`, async () => {
    expect((await get('/sessions', GOOD)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < MAX_WRONG; i++) statuses.push((await get('/sessions', `guess-${i}-SECRET`)).status);
    expect(statuses).toEqual([401, 401, 401]);

    const refused = await get('/sessions', 'guess-again-SECRET');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.headers.get('content-type')).toContain('application/json');
    expect(await readJson(refused)).toEqual({
      error: {
        code: 'rate_limited',
        message:
          'too many wrong bearer tokens from this address (3 within 60 s): its requests are refused until the window passes',
      },
    });
    // The right token does not get through while the address is refused, nor does a request without one.
    expect((await get('/sessions', GOOD)).status).toBe(429);
    expect((await get('/sessions')).status).toBe(429);
    // Routes without auth stay open.
    expect((await get('/health')).status).toBe(200);

    clock += WINDOW_MS - 1;
    const last = await get('/sessions', GOOD);
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('1');
    clock += 1;
    expect((await get('/sessions', GOOD)).status).toBe(200);
    // A new window: wrong tokens are 401 again, counted afresh.
    expect((await get('/sessions', 'guess-new-window-SECRET')).status).toBe(401);
    expect((await get('/sessions', GOOD)).status).toBe(200);
  });

  it('requests without a bearer token are not guesses and are not counted', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < MAX_WRONG * 3; i++) statuses.push((await get('/sessions')).status);
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect((await get('/sessions', GOOD)).status).toBe(200);
  });

  it('a correct token does not reset the count of wrong ones', async () => {
    for (let i = 0; i < MAX_WRONG - 1; i++) expect((await get('/sessions', `g${i}-SECRET`)).status).toBe(401);
    expect((await get('/sessions', GOOD)).status).toBe(200);
    expect((await get('/sessions', 'g-last-SECRET')).status).toBe(401);
    expect((await get('/sessions', GOOD)).status).toBe(429);
  });

  it('the guessed tokens never reach the log; the refusal is logged with the address', async () => {
    for (let i = 0; i <= MAX_WRONG; i++) await get('/sessions', `logged-guess-${i}-SECRET`);
    const log = lines.join('');
    expect(log).toContain('too many wrong bearer tokens from this address');
    expect(log).toContain('"remoteAddress":"127.0.0.1"');
    expect(log).not.toContain('SECRET');
    expect(log).not.toContain(GOOD);
  });
});

describe('loopback mode without tokens', () => {
  it('is not limited: any Authorization header is ignored, however often', async () => {
    const local = await startTestServer({
      limits: { wrongTokensPerAddress: 1, wrongTokenWindowMs: WINDOW_MS },
      authClock: () => 0,
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push(
          (await fetch(`${local.api}/sessions`, { headers: { authorization: `Bearer wrong-${i}` } })).status,
        );
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
    } finally {
      await local.close();
    }
  });
});

describe('the limiter', () => {
  it('counts each address on its own, an IPv6 /64 as one address and IPv4-mapped IPv6 as IPv4', () => {
    let now = 0;
    const limiter = new WrongTokenLimiter({ maxWrong: 2, windowMs: 1000, now: () => now });
    expect([limiter.wrong('10.0.0.1'), limiter.wrong('10.0.0.1')]).toEqual([false, true]);
    expect(() => limiter.check('10.0.0.1')).toThrow(HttpError);
    expect(() => limiter.check('10.0.0.2')).not.toThrow();
    now = 1000;
    expect(() => limiter.check('10.0.0.1')).not.toThrow();

    expect(guessSource('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(guessSource('10.0.0.1')).toBe('10.0.0.1');
    expect(guessSource('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(guessSource('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(guessSource('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(guessSource('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(guessSource('::1')).toBe('0:0:0:0::/64');
    expect(guessSource(undefined)).toBe('unknown');
  });

  it('tracks a bounded number of addresses, forgetting closed windows first, then the oldest', () => {
    let now = 0;
    const limiter = new WrongTokenLimiter({ maxWrong: 1, windowMs: 1000, now: () => now, maxAddresses: 2 });
    limiter.wrong('a');
    now = 10;
    limiter.wrong('b');
    limiter.wrong('c');
    // `a` (the oldest) was forgotten to make room; `b` and `c` are still refused.
    expect(() => limiter.check('a')).not.toThrow();
    expect(() => limiter.check('b')).toThrow(HttpError);
    expect(() => limiter.check('c')).toThrow(HttpError);
  });
});
