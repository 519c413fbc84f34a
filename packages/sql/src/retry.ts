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

/**
 * Runs `fn`, and again after a short, growing pause while it fails with a retryable error, until the window
 * ends. `fn` must be safe to repeat (a read, an idempotent write, a whole transaction that rolled back).
 */
export async function retryTransient<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const windowMs = options.windowMs ?? RETRY_WINDOW_MS;
  const retryable = options.retryable ?? isRetrySafe;
  const deadline = Date.now() + windowMs;
  let delay = FIRST_DELAY_MS;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if (!retryable(error) || Date.now() + delay > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(MAX_DELAY_MS, delay * 2);
    }
  }
}
