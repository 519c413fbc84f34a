import type { FastifyRequest } from 'fastify';
import { guessSource } from './auth.js';
import { HttpError } from './errors.js';
import { PerKeyCounter, type ServerLimits } from './limits.js';

/** The header a client without a token names itself with, for its own budget of open streams. */
export const CLIENT_ID_HEADER = 'x-agentlane-client';

/** As the sync's client ids: short, printable, no separator a key could be forged with. */
const CLIENT_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * Open SSE streams, counted per client. With tokens a client is its token. Without tokens (loopback mode)
 * every caller was one principal, so 64 local tabs and tools shared one budget of 64 streams and the 65th
 * was refused for all of them. There is no identity to key on: the remote port is one per connection (and so
 * one per stream), the address is 127.0.0.1 for everyone. So a client may name itself (`X-Agentlane-Client`,
 * a random id per tab or tool) and gets its own `maxStreamsPerToken` under its address; clients that do not
 * share their address's budget, as before. Loopback mode trusts everyone on the machine as the operator, so a
 * self-chosen id is enough to tell cooperating clients apart; what a runaway client minting ids can take is
 * bounded by `maxLocalStreams` for all of them together (half the connections by default, so requests still
 * get through). With tokens the header is ignored: a token's budget is its own, whatever it calls itself.
 */
export class StreamSlots {
  readonly #perClient: PerKeyCounter;
  readonly #local: PerKeyCounter | undefined;

  constructor(limits: Pick<ServerLimits, 'maxStreamsPerToken' | 'maxLocalStreams'>, loopbackMode: boolean) {
    this.#perClient = new PerKeyCounter(
      limits.maxStreamsPerToken,
      'open streams',
      loopbackMode ? 'this client already holds' : 'this token already holds',
    );
    // Never below one client's budget: all local clients together once had maxStreamsPerToken, and a
    // setup that raised it (a benchmark's 20,000 subscribers) keeps what it asked for.
    const together = Math.max(limits.maxLocalStreams, limits.maxStreamsPerToken);
    this.#local = loopbackMode
      ? new PerKeyCounter(together, 'open streams', 'the clients without a token already hold')
      : undefined;
  }

  /** Takes one stream slot of the request's client (429 past its budget); the function gives it back. */
  acquire(request: FastifyRequest): () => void {
    if (!this.#local) return this.#perClient.acquire(request.principal.key);
    const key = localClientKey(request);
    const releaseAll = this.#local.acquire('local');
    try {
      const release = this.#perClient.acquire(key);
      return () => {
        release();
        releaseAll();
      };
    } catch (err) {
      releaseAll();
      throw err;
    }
  }
}

/** The address (an IPv6 /64 as one) and the id the client named, if it named one. */
function localClientKey(request: FastifyRequest): string {
  const address = guessSource(request.ip);
  const named = request.headers[CLIENT_ID_HEADER];
  if (named === undefined) return address;
  // Node joins a repeated header with ", ": refused like any id outside the pattern.
  if (typeof named !== 'string' || !CLIENT_ID.test(named))
    throw new HttpError(
      'invalid_request',
      'X-Agentlane-Client must be 1 to 128 characters of A-Z, a-z, 0-9, "_", ".", ":" or "-"',
      `headers.${CLIENT_ID_HEADER}`,
    );
  return `${address}|${named}`;
}
