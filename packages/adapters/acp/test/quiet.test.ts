import { describe, expect, it } from 'vitest';
import { waitForQuiet } from '../src/internal';

describe('waitForQuiet', () => {
  it('returns at once when the agent has long been silent', async () => {
    let asked = 0;
    const longAgo = () => {
      asked++;
      return 0;
    };
    await waitForQuiet(longAgo, 250, 5_000, new AbortController().signal);
    expect(asked).toBe(1);
  });

  it('keeps waiting while the agent is active, and stops at once when the turn is cancelled', async () => {
    const abort = new AbortController();
    let asked = 0;
    const waiting = waitForQuiet(
      () => {
        asked++;
        // Busy on the first look; the cancel then ends the wait before the window would.
        if (asked === 1) queueMicrotask(() => abort.abort());
        return Date.now();
      },
      60_000,
      120_000,
      abort.signal,
    );
    await waiting;
    expect(abort.signal.aborted).toBe(true);
    expect(asked).toBeGreaterThanOrEqual(1);
  });
});
