import { describe, expect, it } from 'vitest';
import { startTestServer } from './support/harness';
import { SseReader } from './support/sse-reader';

describe('shutdown (SIGTERM path)', () => {
  it('ends open streams with a retry hint, lets in-flight requests finish, then stops accepting', async () => {
    const t = await startTestServer({ retryMs: 1500 });
    const id = await t.createSession();
    const stream = new SseReader(`${t.api}/threads/${id}/events`);
    await stream.waitFor((r) => r.events.length > 0);
    const inFlight = fetch(`${t.api}/threads/${id}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hello' }),
    });
    // Give the request time to reach the server before shutdown starts.
    await new Promise((r) => setTimeout(r, 30));
    const stopping = t.server.shutdown();
    await stream.done;
    expect(stream.events.at(-1)).toMatchObject({ type: 'stream.closing', reason: 'shutdown', retryMs: 1500 });
    const res = await inFlight;
    expect(res.status).toBe(201);
    await stopping;
    await expect(fetch(`${t.api}/health`)).rejects.toThrow();
    await t.close();
  });
});
