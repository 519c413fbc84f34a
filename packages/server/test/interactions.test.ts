import { createHash } from 'node:crypto';
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

describe('approvals, replies, cancel', () => {
  it('an approval answer reaches the engine and emits approval.resolved', async () => {
    const id = await t.createSession();
    const stream = new SseReader(`${t.api}/threads/${id}/events`);
    const created = await postJson(
      `${t.api}/threads/${id}/runs`,
      { prompt: 'approve' },
      { 'idempotency-key': 'once' },
    );
    expect(created.status).toBe(201);
    const runId = created.json.run.runId as string;
    // A retry with the same key returns the same run.
    const retry = await postJson(
      `${t.api}/threads/${id}/runs`,
      { prompt: 'approve' },
      { 'idempotency-key': 'once' },
    );
    expect(retry.status).toBe(200);
    expect(retry.json.run.runId).toBe(runId);

    await stream.waitFor((r) => r.events.some((e) => e.type === 'approval.requested'));
    const answer = await postJson(`${t.api}/runs/${runId}/approvals/ap1`, {
      outcome: 'selected',
      optionId: 'yes',
    });
    expect(answer.status).toBe(202);
    await stream.waitFor((r) => r.events.some((e) => e.type === 'run.canonicalized'));
    const resolved = stream.events.find((e) => e.type === 'approval.resolved');
    expect(resolved && 'event' in resolved && resolved.event.payload).toMatchObject({
      approvalId: 'ap1',
      outcome: 'selected',
      optionId: 'yes',
      answeredBy: 'local',
    });
    const text = stream.events.find((e) => 'event' in e && e.event.kind === 'message.delta');
    expect(text && 'event' in text && text.event.kind === 'message.delta' && text.event.payload.delta).toBe(
      'answer:yes',
    );

    // A reply is a run.create with parentRunId.
    const reply = await postJson(`${t.api}/threads/${id}/runs`, { prompt: 'again', parentRunId: runId });
    expect(reply.status).toBe(201);
    expect(reply.json.run.parentRunId).toBe(runId);
    const read = await fetch(`${t.api}/runs/${reply.json.run.runId}`);
    expect((await readJson(read)).run.parentRunId).toBe(runId);
    stream.close();
  });

  it('run.cancel stops a run waiting for an answer', async () => {
    const id = await t.createSession();
    const stream = new SseReader(`${t.api}/threads/${id}/events`);
    const created = await postJson(`${t.api}/threads/${id}/runs`, { prompt: 'approve' });
    await stream.waitFor((r) => r.events.some((e) => e.type === 'approval.requested'));
    const cancel = await postJson(`${t.api}/runs/${created.json.run.runId}/cancel`, {});
    expect(cancel.status).toBe(202);
    await stream.waitFor((r) => r.events.some((e) => e.type === 'run.canonicalized'));
    const run = await readJson(await fetch(`${t.api}/runs/${created.json.run.runId}`));
    // Four run statuses in the contract: a cancel ends the run completed, with outcome cancelled and no error.
    expect(run.run).toMatchObject({ status: 'completed', outcome: 'cancelled', error: null });

    // Its request can no longer reach an engine: an answer now is refused, not accepted and dropped.
    for (const path of ['approvals/ap1', 'questions/q1']) {
      const late = await postJson(`${t.api}/runs/${created.json.run.runId}/${path}`, {
        outcome: path.startsWith('approvals') ? 'cancelled' : 'declined',
      });
      expect(late.status).toBe(409);
      expect(late.json.error).toMatchObject({ code: 'conflict', field: 'params.id' });
      expect(late.json.error.message).toContain('has ended (cancelled)');
    }
    stream.close();
  });
});

describe('artifacts', () => {
  it('serves content with its type, a sha256 ETag, conditional GET and Range', async () => {
    const content = new TextEncoder().encode('0123456789abcdef');
    const ref = await t.store.putArtifact(content, 'text/plain');
    const url = `${t.api}/artifacts/${ref.id}`;
    const full = await fetch(url);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toContain('text/plain');
    const sha = createHash('sha256').update(content).digest('hex');
    expect(full.headers.get('etag')).toBe(`"${sha}"`);
    expect(await full.text()).toBe('0123456789abcdef');

    const notModified = await fetch(url, { headers: { 'if-none-match': `"${sha}"` } });
    expect(notModified.status).toBe(304);
    // If-None-Match compares weakly.
    expect((await fetch(url, { headers: { 'if-none-match': `W/"${sha}"` } })).status).toBe(304);

    const part = await fetch(url, { headers: { range: 'bytes=2-5' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 2-5/16');
    expect(await part.text()).toBe('2345');
    const suffix = await fetch(url, { headers: { range: 'bytes=-3' } });
    expect(await suffix.text()).toBe('def');
    const open = await fetch(url, { headers: { range: 'bytes=14-' } });
    expect(await open.text()).toBe('ef');
    const bad = await fetch(url, { headers: { range: 'bytes=99-' } });
    expect(bad.status).toBe(416);
    expect(bad.headers.get('content-range')).toBe('bytes */16');
    expect((await readJson(bad)).error).toEqual({
      code: 'range_not_satisfiable',
      message: 'range "bytes=99-" is outside 0-15',
      field: 'headers.range',
    });
    // An invalid range (last before first) is ignored: the whole content.
    const invalid = await fetch(url, { headers: { range: 'bytes=5-1' } });
    expect(invalid.status).toBe(200);
    expect(await invalid.text()).toBe('0123456789abcdef');
  });

  it('a chunked artifact (stored from a stream, 2.5 chunks) is served whole and by ranges across chunks', async () => {
    const size = Math.floor(2.5 * 1024 * 1024);
    const content = Buffer.alloc(size);
    for (let i = 0; i < size; i++) content[i] = (i * 7 + (i >> 12)) & 0xff;
    const sha256 = createHash('sha256').update(content).digest('hex');
    async function* pieces() {
      // Odd-sized pieces, as a file stream would hand them over.
      for (let at = 0; at < size; at += 300_001) yield content.subarray(at, Math.min(size, at + 300_001));
    }
    const ref = await t.store.putArtifactStream(pieces(), 'text/plain', sha256);
    expect(ref).toEqual({ id: `sha256-${sha256}`, sha256, bytes: size, contentType: 'text/plain' });
    const url = `${t.api}/artifacts/${ref.id}`;
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBe(String(size));
    expect(whole.headers.get('etag')).toBe(`"${sha256}"`);
    expect(Buffer.from(await whole.arrayBuffer()).equals(content)).toBe(true);
    const start = 1024 * 1024 - 5;
    const end = 2 * 1024 * 1024 + 4;
    const part = await fetch(url, { headers: { range: `bytes=${start}-${end}` } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(content.subarray(start, end + 1))).toBe(true);
    const tail = await fetch(url, { headers: { range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(content.subarray(size - 10))).toBe(true);
    // Content that does not hash to the sha256 named is refused and nothing is stored.
    const wrong = '0'.repeat(64);
    await expect(t.store.putArtifactStream(pieces(), 'text/plain', wrong)).rejects.toThrow(/sha256/);
    expect(await t.store.openArtifact(`sha256-${wrong}`)).toBeNull();
  });
});

describe('openapi and health', () => {
  it('publishes an OpenAPI 3.1 document generated from the route schemas', async () => {
    const doc = await readJson(await fetch(`${t.api}/openapi.json`));
    expect(doc.openapi).toBe('3.1.0');
    for (const path of [
      '/api/harness/sessions',
      '/api/harness/sessions/{id}',
      '/api/harness/sessions/{id}/sync',
      '/api/harness/sessions/{id}/execute',
      '/api/harness/health',
      '/api/harness/threads/{id}/events',
      '/api/harness/threads/{id}/runs',
      '/api/harness/runs/{id}',
      '/api/harness/runs/{id}/cancel',
      '/api/harness/runs/{id}/approvals/{approvalId}',
      '/api/harness/runs/{id}/questions/{questionId}',
      '/api/harness/artifacts/{id}',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(
      doc.paths['/api/harness/sessions'].post.requestBody.content['application/json'].schema.required,
    ).toContain('engine');
  });

  it('health reports status, version, store backend and checks', async () => {
    const res = await fetch(`${t.api}/health`);
    expect(res.status).toBe(200);
    expect(await readJson(res)).toMatchObject({
      status: 'ok',
      version: expect.any(String),
      store: 'sqlite',
      checks: { store: { status: 'ok' } },
    });
  });
});
