import { setTimeout as sleep } from 'node:timers/promises';
import { nextSlice, sliceSpent } from './loop-slice.js';

/** How long the engine waits on a model server of its own accord (Node's own limit is 300 s of silence). */
export interface ModelTimeouts {
  /** From sending the request to the first event of the answer (headers included). Default 120 s. */
  firstByteMs?: number;
  /** Between two events of a streamed answer; keep-alive comments and pings are not progress. Default 60 s. */
  idleMs?: number;
}

/** Rate limits: a 429 (or a 503 with Retry-After) is sent again after the wait the server asks for. */
export interface RateLimitRetries {
  /** Requests sent again at most (default 3; 0: never). */
  attempts?: number;
  /** The longest wait honoured (default 30 s): a longer Retry-After waits this long. */
  maxDelayMs?: number;
}

/** The most bytes of a model stream handed to the SDK in one piece: a 16 KB slice parses in a few ms. */
const MAX_SLICE_BYTES = 16 * 1024;

export const DEFAULT_TIMEOUTS = { firstByteMs: 120_000, idleMs: 60_000 } as const;
export const DEFAULT_RETRIES = { attempts: 3, maxDelayMs: 30_000 } as const;

/** The error a stalled model call ends with: its message says it timed out (the SDK passes it through). */
export class ModelStreamTimeout extends Error {
  override name = 'ModelStreamTimeout';
}

/** A stream that ended before its provider's final event (Anthropic's message_stop). */
export class ModelStreamTruncated extends Error {
  override name = 'ModelStreamTruncated';
}

export interface GuardOptions {
  timeouts?: ModelTimeouts;
  retries?: RateLimitRetries;
  /** The SSE event that ends a complete stream (`message_stop` for Anthropic); absent: none checked. */
  finalEvent?: string;
}

/**
 * Wraps the provider's fetch with what the AI SDK leaves to the transport: a first-byte and an idle timeout
 * that count only real events (an SSE comment or ping resets nothing), a check that a stream which must end
 * with a final event did, and bounded retries of rate-limited requests honouring Retry-After.
 */
export function guardedFetch(base: typeof fetch, options: GuardOptions): typeof fetch {
  const firstByteMs = options.timeouts?.firstByteMs ?? DEFAULT_TIMEOUTS.firstByteMs;
  const idleMs = options.timeouts?.idleMs ?? DEFAULT_TIMEOUTS.idleMs;
  const attempts = options.retries?.attempts ?? DEFAULT_RETRIES.attempts;
  const maxDelayMs = options.retries?.maxDelayMs ?? DEFAULT_RETRIES.maxDelayMs;
  return async (input, init) => {
    for (let attempt = 0; ; attempt++) {
      const response = await timedFetch(base, input, init, firstByteMs, idleMs, options.finalEvent);
      const retryAfter = response.headers.get('retry-after');
      const limited = response.status === 429 || (response.status === 503 && retryAfter !== null);
      if (!limited || attempt >= attempts) return response;
      await response.body?.cancel().catch(() => {});
      const wait = Math.min(maxDelayMs, retryDelayMs(response.headers) ?? 1000 * 2 ** attempt);
      await sleep(wait, undefined, init?.signal ? { signal: init.signal } : undefined);
    }
  };
}

/** Retry-After in seconds or as an HTTP date (also the `retry-after-ms` some providers send); null if none. */
export function retryDelayMs(headers: Headers, now = Date.now()): number | null {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null) return null;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

async function timedFetch(
  base: typeof fetch,
  input: Parameters<typeof fetch>[0],
  init: RequestInit | undefined,
  firstByteMs: number,
  idleMs: number,
  finalEvent: string | undefined,
): Promise<Response> {
  const own = new AbortController();
  const signal = init?.signal ? AbortSignal.any([init.signal, own.signal]) : own.signal;
  const timeout = (what: string, ms: number) =>
    own.abort(new ModelStreamTimeout(`the model server timed out: ${what} for ${ms} ms`));
  let timer = setTimeout(() => timeout('no response', firstByteMs), firstByteMs);
  let response: Response;
  try {
    response = await base(input, { ...init, signal });
  } catch (err) {
    clearTimeout(timer);
    throw own.signal.aborted ? own.signal.reason : err;
  }
  const body = response.body;
  if (!body) {
    clearTimeout(timer);
    return response;
  }
  const sse = /text\/event-stream/i.test(response.headers.get('content-type') ?? '');
  const events = sse ? new SseProgress(finalEvent) : null;
  const reader = body.getReader();
  // A timeout aborts the request: the pending read then ends (or fails), and the stream fails with the reason.
  own.signal.addEventListener('abort', () => reader.cancel(own.signal.reason).catch(() => {}), {
    once: true,
  });
  /** What is left of a large network read, handed on a slice at a time (see MAX_SLICE_BYTES). */
  let rest: Uint8Array | null = null;
  const handOn = (controller: ReadableStreamDefaultController<Uint8Array>, bytes: Uint8Array) => {
    rest = bytes.byteLength > MAX_SLICE_BYTES ? bytes.subarray(MAX_SLICE_BYTES) : null;
    controller.enqueue(rest ? bytes.subarray(0, MAX_SLICE_BYTES) : bytes);
  };
  const guarded = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // A model server that writes faster than the SDK parses fills this stream's queue, and parsing it
        // never leaves the microtask queue: every few ms the event loop gets its turn (other requests,
        // commits) before the next slice is handed on.
        if (sliceSpent()) await nextSlice();
        if (rest) {
          handOn(controller, rest);
          return;
        }
        const next = await reader.read();
        if (own.signal.aborted) throw own.signal.reason;
        if (next.done) {
          clearTimeout(timer);
          if (events && response.ok && !events.finished)
            throw new ModelStreamTruncated(
              `the model stream ended without its final ${finalEvent} event (cut short)`,
            );
          controller.close();
          return;
        }
        // Only a real event is progress: a keep-alive comment or a ping leaves the timer running, and until
        // the first event the first-byte limit runs on (headers alone are no answer).
        if (events ? events.feed(next.value) : next.value.byteLength > 0) {
          clearTimeout(timer);
          timer = setTimeout(() => timeout('no stream event', idleMs), idleMs);
        }
        handOn(controller, next.value);
      } catch (err) {
        clearTimeout(timer);
        reader.cancel().catch(() => {});
        controller.error(own.signal.aborted ? own.signal.reason : err);
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
  return new Response(guarded, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Reads SSE event boundaries from bytes: which events carry data, and whether the final event came. */
class SseProgress {
  private readonly decoder = new TextDecoder();
  private pending = '';
  finished: boolean;
  constructor(private readonly finalEvent: string | undefined) {
    this.finished = finalEvent === undefined;
  }
  /** Whether the bytes completed at least one event with data that is not a ping. */
  feed(bytes: Uint8Array): boolean {
    this.pending += this.decoder.decode(bytes, { stream: true }).replace(/\r\n?/g, '\n');
    let progress = false;
    for (let end = this.pending.indexOf('\n\n'); end >= 0; end = this.pending.indexOf('\n\n')) {
      const block = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 2);
      let event = '';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
      }
      if (data === '') continue;
      const type = event || /"type"\s*:\s*"([^"]+)"/.exec(data)?.[1] || '';
      if (type === 'ping') continue;
      if (this.finalEvent !== undefined && type === this.finalEvent) this.finished = true;
      progress = true;
    }
    return progress;
  }
}
