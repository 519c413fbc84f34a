/**
 * Resolves once `lastActivity()` lies `quietMs` in the past, after `maxMs` at most, or at once when the
 * signal aborts. Gemini CLI streams a loaded session's history after its load response, one awaited write per
 * item, so the replay is over once the agent has been silent for a moment; prompting earlier interleaves the
 * replay with the new turn (see ../translate/replay.ts). A bounded wait, so a chatty agent only delays, never blocks.
 */
export async function waitForQuiet(
  lastActivity: () => number,
  quietMs: number,
  maxMs: number,
  signal: AbortSignal,
): Promise<void> {
  const start = Date.now();
  for (;;) {
    const now = Date.now();
    const idle = now - lastActivity();
    if (idle >= quietMs || now - start >= maxMs || signal.aborted) return;
    const wait = Math.min(quietMs - idle, maxMs - (now - start));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, wait);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
