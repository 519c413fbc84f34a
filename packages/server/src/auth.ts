import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { HttpError, quote } from './errors.js';

/** A bearer token from configuration, scoped to every thread or to a list of thread ids. */
export interface AuthToken {
  token: string;
  threads: '*' | string[];
  /** Who answers approvals with this token (recorded as answeredBy); never the token itself. */
  name?: string;
}

export interface Principal {
  name: string;
  /** Who the caller is for per-token limits and idempotency keys: a digest prefix of the token, or `local`. */
  key: string;
  threads: '*' | ReadonlySet<string>;
}

const LOCAL_PRINCIPAL: Principal = { name: 'local', key: 'local', threads: '*' };

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function isLoopbackHost(host: string): boolean {
  if (LOOPBACK.has(host)) return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** Without tokens the server may only listen on loopback; any other address needs bearer tokens. */
export function assertBindAllowed(host: string, tokens: readonly AuthToken[]): void {
  if (!isLoopbackHost(host) && tokens.length === 0) {
    throw new Error(
      `refusing to listen on ${host} without auth: configure bearer tokens (config "tokens") or bind 127.0.0.1`,
    );
  }
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** How many wrong bearer tokens one address may send in a window (`limits` of createServer). */
export interface WrongTokenLimit {
  /** Wrong tokens one address may send within `windowMs` of its first; past them it gets 429. */
  maxWrong: number;
  windowMs: number;
  /** A monotonic clock in ms (tests move it). Default performance.now. */
  now?: () => number;
  /** Addresses tracked at once; past this the oldest is forgotten. Default 10,000. */
  maxAddresses?: number;
}

/**
 * Who a guess comes from: an IPv4 address (an IPv4-mapped IPv6 one as IPv4), or the /64 prefix of an IPv6
 * address, since one host usually holds a whole /64 and could otherwise spread its guesses over it.
 */
export function guessSource(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const address = ip.split('%')[0] ?? ip;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (isIP(address) !== 6) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const groups = (part: string) =>
    part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${all
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Wrong bearer tokens per address, counted in a window that opens at the address's first wrong token: once
 * `maxWrong` arrived within `windowMs`, every request of that address needing auth gets 429 (`Retry-After`:
 * until the window closes) without its token being looked at, a correct one included: refused until the
 * window passes, otherwise a guesser would learn from which token is let through. A correct token does not
 * reset the count (addresses behind one NAT share it). Requests without a bearer token are not guesses and
 * are not counted.
 */
export class WrongTokenLimiter {
  readonly #sources = new Map<string, { since: number; wrong: number }>();
  readonly #now: () => number;
  readonly #maxAddresses: number;

  constructor(private readonly limit: WrongTokenLimit) {
    this.#now = limit.now ?? (() => performance.now());
    this.#maxAddresses = limit.maxAddresses ?? 10_000;
  }

  /** Throws 429 while `source` is refused. Costs a map lookup, whatever the request carries. */
  check(source: string): void {
    const entry = this.#current(source, this.#now());
    if (!entry || entry.wrong < this.limit.maxWrong) return;
    const left = entry.since + this.limit.windowMs - this.#now();
    throw new HttpError(
      'rate_limited',
      `too many wrong bearer tokens from this address (${this.limit.maxWrong} within ${Math.ceil(this.limit.windowMs / 1000)} s): its requests are refused until the window passes`,
      undefined,
      undefined,
      Math.max(1, Math.ceil(left / 1000)),
    );
  }

  /** Counts a wrong token of `source`; true when it is the one that gets the address refused. */
  wrong(source: string): boolean {
    const now = this.#now();
    let entry = this.#current(source, now);
    if (!entry) {
      if (this.#sources.size >= this.#maxAddresses) this.#evict(now);
      entry = { since: now, wrong: 0 };
      this.#sources.set(source, entry);
    }
    entry.wrong += 1;
    return entry.wrong === this.limit.maxWrong;
  }

  /** The source's window if it is still open (a closed one is forgotten). */
  #current(source: string, now: number) {
    const entry = this.#sources.get(source);
    if (entry && now - entry.since >= this.limit.windowMs) {
      this.#sources.delete(source);
      return undefined;
    }
    return entry;
  }

  /** Forgets closed windows, and if every tracked address is still in one, the oldest. */
  #evict(now: number): void {
    for (const [source, entry] of this.#sources)
      if (now - entry.since >= this.limit.windowMs) this.#sources.delete(source);
    if (this.#sources.size >= this.#maxAddresses) {
      const oldest = this.#sources.keys().next().value;
      if (oldest !== undefined) this.#sources.delete(oldest);
    }
  }
}

/** Resolves the caller from the Authorization header; null tokens mean local-only mode (everything allowed). */
export class Authenticator {
  readonly #tokens: { digest: Buffer; principal: Principal }[];
  readonly #guesses: WrongTokenLimiter | undefined;

  constructor(tokens: readonly AuthToken[], wrongTokens?: WrongTokenLimit) {
    this.#tokens = tokens.map((t, i) => {
      const d = digest(t.token);
      return {
        digest: d,
        principal: {
          name: t.name ?? `token-${i + 1}`,
          // Stable across restarts and config reordering; a prefix of a hash of a ≥16-character secret reveals nothing usable.
          key: `t-${d.subarray(0, 8).toString('hex')}`,
          threads: t.threads === '*' ? '*' : new Set(t.threads),
        },
      };
    });
    this.#guesses = wrongTokens && tokens.length > 0 ? new WrongTokenLimiter(wrongTokens) : undefined;
  }

  get enabled(): boolean {
    return this.#tokens.length > 0;
  }

  authenticate(request: FastifyRequest): Principal {
    if (!this.enabled) return LOCAL_PRINCIPAL;
    // An address refused for wrong tokens is answered before its token is read (constant cost).
    const source = guessSource(request.ip);
    this.#guesses?.check(source);
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1])
      throw new HttpError('unauthorized', 'a bearer token is required (Authorization: Bearer …)');
    // Compare digests so the comparison time does not depend on where the tokens differ.
    const presented = digest(match[1]);
    for (const entry of this.#tokens) {
      if (timingSafeEqual(entry.digest, presented)) return entry.principal;
    }
    if (this.#guesses?.wrong(source)) {
      // The address, never the token it sent.
      request.log.warn(
        { remoteAddress: source },
        'too many wrong bearer tokens from this address: its requests are refused (429) until its window passes',
      );
    }
    throw new HttpError('unauthorized', 'the bearer token is not valid');
  }
}

export function canAccessThread(principal: Principal, threadId: string): boolean {
  return principal.threads === '*' || principal.threads.has(threadId);
}

export function assertThreadAccess(principal: Principal, threadId: string): void {
  if (!canAccessThread(principal, threadId)) {
    throw new HttpError('forbidden', `this token is not allowed to access thread ${quote(threadId)}`);
  }
}

export function assertAllThreads(principal: Principal, action: string): void {
  if (principal.threads !== '*')
    throw new HttpError('forbidden', `${action} needs a token scoped to all threads`);
}
