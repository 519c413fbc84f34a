import { describe, expect, it } from 'vitest';
import { AgentlaneClient } from '../src';

/** A fetch that records each request's headers and answers JSON (or an empty event stream). */
function recordingFetch(seen: Record<string, string>[]): typeof fetch {
  return (async (_url: string | URL | Request, init?: RequestInit) => {
    const headers = (init?.headers ?? {}) as Record<string, string>;
    seen.push({ ...headers });
    const stream = headers.accept === 'text/event-stream';
    return new Response(stream ? '' : '{"status":"ok"}', {
      status: 200,
      headers: { 'content-type': stream ? 'text/event-stream' : 'application/json' },
    });
  }) as typeof fetch;
}

/** The server's pattern for the header (packages/server/src/stream-slots.ts). */
const SERVER_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

describe('the X-Agentlane-Client id', () => {
  it('is sent with every request and every stream of a client, the same id; another client has another', async () => {
    const seen: Record<string, string>[] = [];
    const client = new AgentlaneClient({ url: 'http://127.0.0.1:1', fetch: recordingFetch(seen) });
    await client.health();
    const stream = client.subscribeThread('t1', { maxAttempts: 1 });
    await stream.next().catch(() => undefined);
    await stream.return(undefined);
    const ids = seen.map((h) => h['x-agentlane-client']);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ids)).toEqual(new Set([client.clientId]));
    expect(client.clientId).toMatch(SERVER_PATTERN);
    const other = new AgentlaneClient({ url: 'http://127.0.0.1:1', fetch: recordingFetch([]) });
    expect(other.clientId).not.toBe(client.clientId);
  });

  it('is the one given when given; one the server would refuse fails at construction', () => {
    expect(new AgentlaneClient({ clientId: 'tab-1' }).clientId).toBe('tab-1');
    for (const bad of ['', 'a b', 'x'.repeat(129), 'tab|1'])
      expect(() => new AgentlaneClient({ clientId: bad }), JSON.stringify(bad)).toThrow(/clientId/);
  });
});
