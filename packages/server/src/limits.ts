import { HttpError } from './errors.js';

/**
 * What one client may take from the server. The defaults suit a small team on one machine: generous for
 * people and the web UI, tight enough that one token (or one trickling client) cannot exhaust the process.
 */
export interface ServerLimits {
  /** The whole request (headers and body) must arrive within this; a body shorter than its Content-Length ends here (408). */
  requestTimeoutMs: number;
  /** The headers must arrive within this (408). */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** A socket with no traffic either way is closed after this; must exceed the SSE heartbeat. */
  connectionTimeoutMs: number;
  /** Open TCP connections at once; more are refused by the kernel-facing server (dropped at accept). */
  maxConnections: number;
  /**
   * Open SSE streams per token; one more gets 429. Without tokens (loopback mode), per client: its address
   * and the `X-Agentlane-Client` id it names, if any (see src/stream-slots.ts).
   */
  maxStreamsPerToken: number;
  /**
   * Open SSE streams of every client without a token together (loopback mode; never fewer than
   * maxStreamsPerToken); one more gets 429.
   */
  maxLocalStreams: number;
  /** Runs queued or running per token created through this process; one more gets 429. */
  maxRunsPerToken: number;
  /** Sustained requests per second per token (token bucket)… */
  requestsPerSecond: number;
  /** …and the burst it may spend at once. */
  requestBurst: number;
  /**
   * Wrong bearer tokens one address (an IPv6 /64) may send within `wrongTokenWindowMs` of its first; then
   * every request of it that needs auth gets 429 until the window passes, a correct token included.
   */
  wrongTokensPerAddress: number;
  /** The window of `wrongTokensPerAddress`. */
  wrongTokenWindowMs: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  connectionTimeoutMs: 120_000,
  maxConnections: 1024,
  maxStreamsPerToken: 64,
  // Half of maxConnections: clients that each name an id cannot hold every connection with streams.
  maxLocalStreams: 512,
  maxRunsPerToken: 8,
  requestsPerSecond: 50,
  requestBurst: 200,
  wrongTokensPerAddress: 20,
  wrongTokenWindowMs: 60_000,
};

export function resolveLimits(partial: Partial<ServerLimits> = {}): ServerLimits {
  const limits = { ...DEFAULT_LIMITS, ...partial };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isFinite(value) || value <= 0)
      throw new Error(`limit ${name} must be a positive number, got ${value}`);
  }
  // Node checks request and headers timeouts against each other: headers can never take longer than the request.
  limits.headersTimeoutMs = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return limits;
}

/** A token bucket per principal: `take` throws 429 with Retry-After once the bucket is empty. */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  take(key: string): void {
    const now = this.now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) {
      const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
      throw new HttpError(
        'rate_limited',
        `more than ${this.perSecond} requests per second with this token`,
        undefined,
        undefined,
        wait,
      );
    }
    bucket.tokens -= 1;
  }
}

/** Counts what a principal holds open (streams) and refuses one more than `max` with 429. */
export class PerKeyCounter {
  readonly #counts = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly what: string,
    /** Who holds them, as the 429 says it. */
    private readonly holder = 'this token already holds',
  ) {}

  /** Takes one slot; the returned function gives it back (idempotent). */
  acquire(key: string): () => void {
    const count = this.#counts.get(key) ?? 0;
    if (count >= this.max)
      throw new HttpError('rate_limited', `${this.holder} ${this.max} ${this.what}`, undefined, undefined, 1);
    this.#counts.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#counts.get(key) ?? 1) - 1;
      if (left <= 0) this.#counts.delete(key);
      else this.#counts.set(key, left);
    };
  }
}
