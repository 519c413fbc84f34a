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

/** Resolves the caller from the Authorization header; null tokens mean local-only mode (everything allowed). */
export class Authenticator {
  readonly #tokens: { digest: Buffer; principal: Principal }[];

  constructor(tokens: readonly AuthToken[]) {
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
  }

  get enabled(): boolean {
    return this.#tokens.length > 0;
  }

  authenticate(request: FastifyRequest): Principal {
    if (!this.enabled) return LOCAL_PRINCIPAL;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1])
      throw new HttpError('unauthorized', 'a bearer token is required (Authorization: Bearer …)');
    // Compare digests so the comparison time does not depend on where the tokens differ.
    const presented = digest(match[1]);
    for (const entry of this.#tokens) {
      if (timingSafeEqual(entry.digest, presented)) return entry.principal;
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
