import { setTimeout as sleep } from 'node:timers/promises';
import { nextSlice, sliceSpent } from './loop-slice.js';
import { EmptyDataLines, SseProgress } from './sse-guard.js';
import { type Repaired, SseRepairs } from './sse-repair.js';

/** How long the engine waits on a model server of its own accord (Node's own limit is 300 s of silence). */
export interface ModelTimeouts {
  /** From sending the request to the first event of the answer (headers included). Default 120 s. */
  firstByteMs?: number;
  /**
   * Between two events of a streamed answer that carry some of it (text, reasoning, a tool call, a finish);
   * keep-alive comments, pings and empty chunks are not progress. Only time the engine spends waiting on the
   * server counts: a reader busy with what already came does not use it up. Default 60 s.
   */
  idleMs?: number;
  /** The whole call, from the first request to the stream's end, rate-limit waits included. Default 10 min. */
  totalMs?: number;
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

export const DEFAULT_TIMEOUTS = { firstByteMs: 120_000, idleMs: 60_000, totalMs: 600_000 } as const;
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
  /** Told what was repaired in one event of the stream (sse-repair.ts). */
  repaired?: (r: Repaired) => void;
}

/** The limits of one call, resolved. */
interface Limits {
  firstByteMs: number;
  idleMs: number;
  totalMs: number;
  /** performance.now() at which the call's total time is up. */
  deadline: number;
  finalEvent: string | undefined;
  repaired: ((r: Repaired) => void) | undefined;
}

/**
 * Wraps the provider's fetch with what the AI SDK leaves to the transport: a first-byte and an idle timeout
 * that count only events carrying some of the answer (an SSE comment, a ping or an empty chunk resets
 * nothing), a deadline for the whole call, a check that a stream which must end with a final event did, a
 * bound on what is held without an event boundary, empty `data:` lines dropped, and bounded retries of
 * rate-limited requests honouring Retry-After.
 */
export function guardedFetch(base: typeof fetch, options: GuardOptions): typeof fetch {
  const t = { ...DEFAULT_TIMEOUTS, ...definedOnly(options.timeouts ?? {}) };
  const attempts = options.retries?.attempts ?? DEFAULT_RETRIES.attempts;
  const maxDelayMs = options.retries?.maxDelayMs ?? DEFAULT_RETRIES.maxDelayMs;
  return async (input, init) => {
    const limits: Limits = {
      ...t,
      deadline: performance.now() + t.totalMs,
      finalEvent: options.finalEvent,
      repaired: options.repaired,
    };
    for (let attempt = 0; ; attempt++) {
      const response = await timedFetch(base, input, init, limits);
      const retryAfter = response.headers.get('retry-after');
      const limited = response.status === 429 || (response.status === 503 && retryAfter !== null);
      if (!limited || attempt >= attempts) return response;
      const wait = Math.min(maxDelayMs, retryDelayMs(response.headers) ?? 1000 * 2 ** attempt);
      // A wait that would outlast the call's deadline is not waited: the rate limit is the call's error.
      if (performance.now() + wait >= limits.deadline) return response;
      await response.body?.cancel().catch(() => {});
      await sleep(wait, undefined, init?.signal ? { signal: init.signal } : undefined);
    }
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The timers of one request, each aborting it with a ModelStreamTimeout: the first-byte limit (restarted as
 * the idle limit by every event that is progress) and the call's deadline. The first-byte and idle limits
 * measure the server's silence, not the reader's pace: they run only while the request waits on the network
 * (`waiting()` until `arrived()`). A model server that had sent 3,000 tool calls in a second was reported as
 * timed out 38 s later, while the runtime was still busy with the events it had long received.
 */
function callTimers(own: AbortController, limits: Limits) {
  const timeout = (what: string) => own.abort(new ModelStreamTimeout(`the model server timed out: ${what}`));
  let what = `no response for ${limits.firstByteMs} ms`;
  /** What is left of the running limit; it runs down only while a read waits. */
  let left = limits.firstByteMs;
  let since: number | null = null;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const waiting = () => {
    if (since !== null) return;
    since = performance.now();
    const message = what;
    idle = setTimeout(() => timeout(message), Math.max(0, left));
  };
  const arrived = () => {
    clearTimeout(idle);
    if (since !== null) left -= performance.now() - since;
    since = null;
  };
  const deadline = setTimeout(
    () => timeout(`the call took longer than ${limits.totalMs} ms (modelTimeouts.totalMs)`),
    Math.max(0, limits.deadline - performance.now()),
  );
  // The request itself (up to its headers) is a wait on the server.
  waiting();
  return {
    waiting,
    arrived,
    /** An event with some of the answer came: the idle limit starts over (at the next wait). */
    progress() {
      what = `no stream event for ${limits.idleMs} ms`;
      left = limits.idleMs;
    },
    stop() {
      arrived();
      clearTimeout(deadline);
    },
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

const isRedirect = (response: Response) => response.status >= 300 && response.status < 400;

async function refuseRedirect(response: Response): Promise<never> {
  await response.body?.cancel().catch(() => {});
  throw new Error(
    `the model server answered ${response.status} (a redirect); agentlane does not follow a model server's redirects (they would carry the key and the conversation elsewhere): set baseURL to the address it names`,
  );
}

async function timedFetch(
  base: typeof fetch,
  input: Parameters<typeof fetch>[0],
  init: RequestInit | undefined,
  limits: Limits,
): Promise<Response> {
  const own = new AbortController();
  const signal = init?.signal ? AbortSignal.any([init.signal, own.signal]) : own.signal;
  const timers = callTimers(own, limits);
  let response: Response;
  try {
    // Never followed: fetch re-sends the body (the whole conversation) to the new address, and a provider's
    // own key header (Anthropic's x-api-key, Google's x-goog-api-key) with it, to any other host.
    response = await base(input, { ...init, signal, redirect: 'manual' });
  } catch (err) {
    timers.stop();
    throw own.signal.aborted ? own.signal.reason : err;
  }
  if (isRedirect(response)) {
    timers.stop();
    await refuseRedirect(response);
  }
  // Until the reader asks for the body, the time is the reader's (the first read waits on the server again).
  timers.arrived();
  const body = response.body;
  if (!body) {
    timers.stop();
    return response;
  }
  const sse = /text\/event-stream/i.test(response.headers.get('content-type') ?? '');
  // Every body is bounded by what it holds without an event boundary; only an event stream's events are
  // progress (another body's bytes are) and only its empty data lines are dropped.
  const events = new SseProgress(sse ? limits.finalEvent : undefined);
  const lines = sse ? new EmptyDataLines() : null;
  const repairs = sse ? new SseRepairs(limits.repaired ?? (() => {})) : null;
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
        timers.waiting();
        const next = await reader.read();
        timers.arrived();
        if (own.signal.aborted) throw own.signal.reason;
        if (next.done) {
          timers.stop();
          if (sse && response.ok && !events.finished)
            throw new ModelStreamTruncated(
              `the model stream ended without its final ${limits.finalEvent} event (cut short)`,
            );
          const held = lines?.flush();
          if (held && repairs) controller.enqueue(repairs.clean(held));
          const tail = repairs?.flush();
          if (tail) controller.enqueue(tail);
          controller.close();
          return;
        }
        const bytes = lines ? lines.clean(next.value) : next.value;
        // Only an event with some of the answer is progress: a keep-alive comment, a ping or an empty chunk
        // leaves the timer running, and until the first such event the first-byte limit runs on (headers
        // alone are no answer).
        const progress = events.feed(bytes);
        if (sse ? progress : next.value.byteLength > 0) timers.progress();
        handOn(controller, repairs ? repairs.clean(bytes) : bytes);
      } catch (err) {
        timers.stop();
        reader.cancel().catch(() => {});
        controller.error(own.signal.aborted ? own.signal.reason : err);
      }
    },
    cancel(reason) {
      timers.stop();
      return reader.cancel(reason);
    },
  });
  return new Response(guarded, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
