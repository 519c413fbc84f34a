import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, readJson, startTestServer, type TestServer } from './support/harness';
import { SseReader } from './support/sse-reader';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

async function runToCompletion(threadId: string, prompt: string): Promise<string> {
  const created = await postJson(`${t.api}/threads/${threadId}/runs`, { prompt });
  const runId = (created.json as { run: { runId: string } }).run.runId;
  for (let i = 0; i < 200 && !(await t.store.getCompletion(runId)); i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  return runId;
}

describe('resume cursors', () => {
  it('refuses a cursor beyond the head or not a plain decimal integer, with the head in the body', async () => {
    const id = await t.createSession();
    await runToCompletion(id, 'many 3');
    const head = await t.store.headDeliverySeq(id);
    expect(head).toBeGreaterThan(0);
    const cases: [string, Record<string, string>, number, string][] = [
      [`?after=${head + 1}`, {}, 409, 'query.after'],
      [`?after=${head + 1000}`, {}, 409, 'query.after'],
      ['?after=9007199254740991', {}, 409, 'query.after'],
      // A plain decimal past 2^53 is a position too: beyond the head, not malformed.
      ['?after=9007199254740993', {}, 409, 'query.after'],
      [`?after=${'9'.repeat(40)}`, {}, 409, 'query.after'],
      ['?after=1e30', {}, 400, 'query.after'],
      ['?after=0x10', {}, 400, 'query.after'],
      ['?after=-1', {}, 400, 'query.after'],
      ['?after=01', {}, 400, 'query.after'],
      ['?after=1.0', {}, 400, 'query.after'],
      ['?after=', {}, 400, 'query.after'],
      ['?after=%201', {}, 400, 'query.after'],
      ['', { 'last-event-id': String(head + 1) }, 409, 'headers.last-event-id'],
      ['', { 'last-event-id': '1e30' }, 400, 'headers.last-event-id'],
      ['', { 'last-event-id': '0x10' }, 400, 'headers.last-event-id'],
      ['', { 'last-event-id': 'abc' }, 400, 'headers.last-event-id'],
      ['', { 'last-event-id': '9007199254740993' }, 409, 'headers.last-event-id'],
      // Last-Event-ID wins: a bad header is refused even next to a good ?after, and the reverse is accepted.
      ['?after=0', { 'last-event-id': String(head + 5) }, 409, 'headers.last-event-id'],
    ];
    for (const [query, headers, status, field] of cases) {
      const res = await fetch(`${t.api}/threads/${id}/events${query}`, { headers });
      expect({ query, headers, status: res.status }).toEqual({ query, headers, status });
      const body = await readJson(res);
      expect(body).toMatchObject({
        error: { code: status === 409 ? 'conflict' : 'invalid_request', field },
        headDeliverySeq: head,
      });
      expect(typeof body.error.message).toBe('string');
    }
    // At the head exactly: accepted, the stream goes live from there.
    const atHead = new SseReader(`${t.api}/threads/${id}/events?after=${head}`);
    await atHead.waitFor((r) => r.events.length > 0);
    expect(atHead.events[0]).toMatchObject({ type: 'stream.opened', after: head, headDeliverySeq: head });
    atHead.close();
    // Both present: Last-Event-ID (what a reconnecting EventSource sends) wins over ?after.
    const both = new SseReader(`${t.api}/threads/${id}/events?after=0`, {
      headers: { 'last-event-id': '2' },
    });
    await both.waitFor((r) => r.seqs.at(-1) === head);
    expect(both.events[0]).toMatchObject({ type: 'stream.opened', after: 2 });
    expect(both.seqs).toEqual(Array.from({ length: head - 2 }, (_, i) => i + 3));
    both.close();
  });

  it('a resumed stream hears the completion of every run, however many completed while it was away', async () => {
    const id = await t.createSession();
    const runs: string[] = [];
    for (let i = 0; i < 24; i++) runs.push(await runToCompletion(id, 'hello'));
    const resumed = new SseReader(`${t.api}/threads/${id}/events?after=1`);
    await resumed.waitFor(
      (r) => new Set(r.events.filter((e) => e.type === 'run.canonicalized').map((e) => e.runId)).size >= 24,
    );
    const heard = new Set(resumed.events.flatMap((e) => (e.type === 'run.canonicalized' ? [e.runId] : [])));
    expect([...heard].sort()).toEqual([...runs].sort());
    resumed.close();
  }, 60_000);
});
