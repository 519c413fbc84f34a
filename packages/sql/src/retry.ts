import { isRetrySafe } from './errors.js';

export interface RetryOptions {
  /** Give up after this long (the error is rethrown). Default: RETRY_WINDOW_MS. */
  windowMs?: number;
  /** Which errors to retry; default: connection errors whose work surely did not happen. */
  retryable?: (error: unknown) => boolean;
}

/**
 * How long work waits for the database to come back before its error surfaces. A PostgreSQL restart takes
 * about 3 s; 15 s covers a slow one and still bounds a request's wait.
 */
export const RETRY_WINDOW_MS = 15_000;

const FIRST_DELAY_MS = 25;
const MAX_DELAY_MS = 500;

/** How long work waits while the database is known to be down (see outage below). */
export const OUTAGE_WINDOW_MS = 1_000;

/**
 * Whether some work outlasted a whole retry window on a retryable error and nothing succeeded since. Then
 * every request waited the full 15 s for its 503 (a probe measured 14.8 s on every route while PostgreSQL
 * refused connections); while the outage lasts, work waits OUTAGE_WINDOW_MS instead, and the first success
 * ends it. A restart shorter than the window never starts one: the work that waited for it succeeded.
 */
let outage = false;

/** True while the database is known to be unreachable (work gives up after OUTAGE_WINDOW_MS). */
export function inDatabaseOutage(): boolean {
  return outage;
}

/**
 * Runs `fn`, and again after a short, growing pause while it fails with a retryable error, until the window
 * ends. `fn` must be safe to repeat (a read, an idempotent write, a whole transaction that rolled back).
 */
export async function retryTransient<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const windowMs = options.windowMs ?? (outage ? OUTAGE_WINDOW_MS : RETRY_WINDOW_MS);
  const retryable = options.retryable ?? isRetrySafe;
  const deadline = Date.now() + windowMs;
  let delay = FIRST_DELAY_MS;
  for (;;) {
    try {
      const result = await fn();
      outage = false;
      return result;
    } catch (error) {
      if (!retryable(error)) throw error;
      if (Date.now() + delay > deadline) {
        outage = true;
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(MAX_DELAY_MS, delay * 2);
    }
  }
}
