import type { StreamEvent } from '@agentlane/contract';
import { type BackoffOptions, backoffDelay, sleep } from './backoff.js';
import { CLIENT_ID_HEADER, clientIdOf } from './client-id.js';
import { ApiError, apiErrorFrom } from './errors.js';
import { sseMessages } from './sse-reader.js';
import { isCanonicalType, parseStreamEvent } from './stream-event.js';

/** Where a thread subscription stands, for a connection banner. */
export type ConnectionState =
  | { status: 'connecting'; after: number }
  | { status: 'catching-up'; from: number; head: number }
  | { status: 'live'; after: number }
  | { status: 'reconnecting'; attempt: number; delayMs: number; after: number; reason: string }
  | { status: 'closed'; after: number };

export interface TransportOptions {
  /** Server origin plus prefix, e.g. `http://127.0.0.1:4000/api/harness`. */
  baseUrl: string;
  token?: string;
  fetch?: typeof fetch;
  /** Sent as `X-Agentlane-Client` (client-id.ts); AgentlaneClient passes its own. */
  clientId?: string;
}

export interface SubscribeOptions {
  /** Deliver rows with deliverySeq strictly greater than this (the last one the caller has). */
  after?: number;
  signal?: AbortSignal;
  onState?(state: ConnectionState): void;
  backoff?: BackoffOptions;
  /** Reconnect when no byte (frame or heartbeat) arrived for this long. */
  idleTimeoutMs?: number;
  /** Give up after this many consecutive failed attempts (default: never). */
  maxAttempts?: number;
}

/** One connection to the thread channel, resuming after `cursor` (the header a reconnecting EventSource sends too). */
function openThreadStream(
  doFetch: typeof fetch,
  transport: TransportOptions,
  threadId: string,
  cursor: number,
  signal: AbortSignal,
): Promise<Response> {
  const url = `${transport.baseUrl}/threads/${encodeURIComponent(threadId)}/events?after=${cursor}`;
  const headers: Record<string, string> = { accept: 'text/event-stream', 'last-event-id': String(cursor) };
  if (transport.token) headers['authorization'] = `Bearer ${transport.token}`;
  if (transport.clientId !== undefined) headers[CLIENT_ID_HEADER] = clientIdOf(transport.clientId);
  return doFetch(url, { headers, signal });
}

/**
 * Follows a thread's event stream for as long as the caller iterates: replay from `after`, then live.
 * Reconnects with backoff and `Last-Event-ID` after any drop, never yields a canonical row twice (by
 * deliverySeq), skips unknown types, and honours `stream.closing.retryMs`. A permanent refusal (401, 403,
 * 404, 400) ends the iteration with an ApiError; aborting the signal ends it quietly.
 */
export async function* subscribeThread(
  transport: TransportOptions,
  threadId: string,
  options: SubscribeOptions = {},
): AsyncGenerator<StreamEvent> {
  const doFetch = transport.fetch ?? globalThis.fetch.bind(globalThis);
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  let cursor = options.after ?? 0;
  let attempt = 0;
  let lastState = '';
  const report = (state: ConnectionState) => {
    const key = JSON.stringify(state);
    if (key === lastState) return;
    lastState = key;
    options.onState?.(state);
  };
  const stop = options.signal;

  try {
    while (!stop?.aborted) {
      report({ status: 'connecting', after: cursor });
      const connection = new AbortController();
      const onStop = () => connection.abort();
      stop?.addEventListener('abort', onStop, { once: true });
      let idleTimer: ReturnType<typeof setTimeout> | undefined;
      const touch = () => {
        clearTimeout(idleTimer);
        idleTimer = setTimeout(() => connection.abort(), idleTimeoutMs);
      };
      let serverRetryMs: number | undefined;
      let closingRetryMs: number | undefined;
      let reason = 'stream ended';
      let head = Number.POSITIVE_INFINITY;
      try {
        touch();
        const response = await openThreadStream(doFetch, transport, threadId, cursor, connection.signal);
        if (!response.ok || !response.body) {
          const error = await apiErrorFrom(response);
          if (error.permanent) throw error;
          reason = `HTTP ${response.status}`;
        } else {
          const messages = sseMessages(response.body, {
            onActivity: touch,
            onRetry: (ms) => {
              serverRetryMs = ms;
            },
          });
          for await (const message of messages) {
            const event = parseStreamEvent(message.data);
            if (!event) continue;
            if (event.type === 'stream.opened') {
              attempt = 0;
              head = event.headDeliverySeq;
              if (head > cursor) report({ status: 'catching-up', from: cursor, head });
              else report({ status: 'live', after: cursor });
            } else if (event.type === 'stream.closing') {
              closingRetryMs = event.retryMs;
              reason = `server closing: ${event.reason}`;
            } else if (
              isCanonicalType(event.type) &&
              'deliverySeq' in event &&
              event.deliverySeq !== undefined
            ) {
              if (event.deliverySeq <= cursor) continue;
              cursor = event.deliverySeq;
              if (cursor >= head) report({ status: 'live', after: cursor });
            }
            yield event;
          }
        }
      } catch (error) {
        if (error instanceof ApiError && error.permanent) throw error;
        if (stop?.aborted) return;
        reason = error instanceof Error ? error.message : String(error);
      } finally {
        clearTimeout(idleTimer);
        stop?.removeEventListener('abort', onStop);
        connection.abort();
      }
      if (stop?.aborted) return;
      attempt += 1;
      if (options.maxAttempts !== undefined && attempt > options.maxAttempts) {
        throw new Error(`thread ${threadId}: gave up after ${options.maxAttempts} attempts (${reason})`);
      }
      const delayMs =
        closingRetryMs ??
        backoffDelay(attempt - 1, {
          ...options.backoff,
          initialMs: serverRetryMs ?? options.backoff?.initialMs,
        });
      report({ status: 'reconnecting', attempt, delayMs, after: cursor, reason });
      await sleep(delayMs, stop);
    }
  } finally {
    report({ status: 'closed', after: cursor });
  }
}
