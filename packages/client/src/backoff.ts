export interface BackoffOptions {
  /** First retry delay. */
  initialMs?: number;
  /** Ceiling for the exponential growth. */
  maxMs?: number;
  factor?: number;
}

/**
 * Exponential backoff with "equal jitter": half the delay is fixed, half random, so a storm of clients
 * that lost the same server spreads out instead of reconnecting in lockstep.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = {}, random = Math.random): number {
  const initial = options.initialMs ?? 250;
  const max = options.maxMs ?? 15_000;
  const factor = options.factor ?? 2;
  const ceiling = Math.min(max, initial * factor ** Math.max(0, attempt));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Resolves after ms, or early (without throwing) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
