import { createHash } from 'node:crypto';
import type { StreamEvent } from '@agentlane/contract';
import type { EngineDriver, Translator } from '@agentlane/engine-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, readJson, startTestServer, type TestServer } from './support/harness';
import { createScriptedDriver } from './support/scripted-engine';
import { SseReader } from './support/sse-reader';

/**
 * An engine that resolves an approval itself, as a replayed recording does: its turn asks `ap1` and resolves
 * it (no answer of the API involved), asks `ap3` and `q1` without ever waiting for them (their answers stay
 * recorded, undelivered), asks `ap2` and waits for its answer, then runs until cancelled.
 */
function selfResolvingDriver(): EngineDriver {
  const scripted = createScriptedDriver('self-resolving');
  const translator: Translator = {
    ...scripted.translator,
    translate(record, state, ctx) {
      const frame = record.frame as { t?: string; id?: string; optionId?: string };
      const key = `k${record.nativeSeq}`;
      if (frame.t === 'resolved')
        return {
          state,
          events: [
            {
              key,
              draft: {
                kind: 'approval.resolved',
                payload: {
                  approvalId: String(frame.id),
                  outcome: 'selected',
                  optionId: String(frame.optionId),
                },
              },
            },
          ],
        };
      if (frame.t === 'question')
        return {
          state,
          events: [
            {
              key,
              draft: {
                kind: 'question.requested',
                payload: {
                  questionId: String(frame.id),
                  prompt: 'Which one?',
                  choices: [
                    { id: 'a', label: 'A' },
                    { id: 'b', label: 'B' },
                  ],
                  multiple: false,
                  allowFreeText: false,
                },
              },
            },
          ],
        };
      return scripted.translator.translate(record, state, ctx);
    },
  };
  return {
    ...scripted,
    translator,
    async openSession(options) {
      const session = await scripted.openSession(options);
      return {
        ...session,
        async runTurn(_turn, io) {
          io.emit({ t: 'approval', id: 'ap1' });
          io.emit({ t: 'resolved', id: 'ap1', optionId: 'yes' });
          io.emit({ t: 'approval', id: 'ap3' });
          io.emit({ t: 'question', id: 'q1' });
          io.emit({ t: 'approval', id: 'ap2' });
          const answer = await io.awaitApproval('ap2');
          io.emit({ t: 'text', text: `answer:${answer.optionId ?? answer.outcome}` });
          if (!io.signal.aborted)
            await new Promise((resolve) => io.signal.addEventListener('abort', resolve, { once: true }));
          return { outcome: 'cancelled' };
        },
      };
    },
  };
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({}, { drivers: [selfResolvingDriver()] });
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

describe('answers to requests already answered or resolved', () => {
  const payloadOf = (e: StreamEvent, kind: string, id: string) =>
    'event' in e && e.event.kind === kind && (e.event.payload as { approvalId?: string }).approvalId === id;

  /** A run of the self-resolving engine, once it waits for ap2 (ap1 resolved by the engine, ap3 and q1 asked). */
  async function waitingRun() {
    const id = await t.createSession({}, 'self-resolving');
    const stream = new SseReader(`${t.api}/threads/${id}/events`);
    const created = await postJson(`${t.api}/threads/${id}/runs`, { prompt: 'go' });
    expect(created.status).toBe(201);
    const runId = created.json.run.runId as string;
    await stream.waitFor((r) => r.events.some((e) => payloadOf(e, 'approval.requested', 'ap2')));
    return {
      stream,
      answer: (approvalId: string, body: object) =>
        postJson(`${t.api}/runs/${runId}/approvals/${approvalId}`, body),
      question: (body: object) => postJson(`${t.api}/runs/${runId}/questions/q1`, body),
      async end() {
        expect((await postJson(`${t.api}/runs/${runId}/cancel`, {})).status).toBe(202);
        await stream.waitFor((r) => r.events.some((e) => e.type === 'run.canonicalized'));
        stream.close();
      },
    };
  }

  it('an approval the engine resolved itself refuses every answer (409 naming params.approvalId)', async () => {
    const run = await waitingRun();
    const byEngine = run.stream.events.find((e) => payloadOf(e, 'approval.resolved', 'ap1'));
    expect(byEngine && 'event' in byEngine && byEngine.event.payload).toEqual({
      approvalId: 'ap1',
      outcome: 'selected',
      optionId: 'yes',
    });
    // Even the option it was resolved with: this client did not answer it, and the answer would reach nothing.
    for (const body of [{ outcome: 'selected', optionId: 'yes' }, { outcome: 'cancelled' }]) {
      const late = await run.answer('ap1', body);
      expect(late.status).toBe(409);
      expect(late.json.error).toEqual({
        code: 'conflict',
        message:
          'approval "ap1" is already resolved (selected "yes"); only a repeat of the answer that resolved it is accepted',
        field: 'params.approvalId',
      });
    }
    await run.end();
  });

  it('a second, different answer is refused naming the request; the same answer again is 202', async () => {
    const run = await waitingRun();
    // ap3 is asked but never awaited: its first answer is recorded and stays undelivered.
    const [first, second] = await Promise.all([
      run.answer('ap3', { outcome: 'selected', optionId: 'yes' }),
      run.answer('ap3', { outcome: 'selected', optionId: 'no' }),
    ]);
    expect([first.status, second.status].sort()).toEqual([202, 409]);
    const refused = first.status === 409 ? first : second;
    const kept = first.status === 202 ? 'yes' : 'no';
    expect(refused.json.error).toEqual({
      code: 'conflict',
      message: 'approval "ap3" was already answered differently; only its first answer counts',
      field: 'params.approvalId',
    });
    expect((await run.answer('ap3', { outcome: 'selected', optionId: kept })).status).toBe(202);
    const cancelled = await run.answer('ap3', { outcome: 'cancelled' });
    expect(cancelled.status).toBe(409);
    expect(cancelled.json.error.field).toBe('params.approvalId');

    // The same for a question.
    expect((await run.question({ outcome: 'answered', choiceIds: ['a'] })).status).toBe(202);
    expect((await run.question({ outcome: 'answered', choiceIds: ['a'] })).status).toBe(202);
    const otherChoice = await run.question({ outcome: 'answered', choiceIds: ['b'] });
    expect(otherChoice.status).toBe(409);
    expect(otherChoice.json.error).toEqual({
      code: 'conflict',
      message: 'question "q1" was already answered differently; only its first answer counts',
      field: 'params.questionId',
    });
    await run.end();
  });

  it('an approval resolved by this client answer: a repeat is 202, another answer 409', async () => {
    const run = await waitingRun();
    expect((await run.answer('ap2', { outcome: 'selected', optionId: 'no' })).status).toBe(202);
    await run.stream.waitFor((r) =>
      r.events.some(
        (e) => 'event' in e && e.event.kind === 'message.delta' && e.event.payload.delta === 'answer:no',
      ),
    );
    const resolved = run.stream.events.find((e) => payloadOf(e, 'approval.resolved', 'ap2'));
    expect(resolved && 'event' in resolved && resolved.event.payload).toMatchObject({
      outcome: 'selected',
      optionId: 'no',
      answeredBy: 'local',
    });
    expect((await run.answer('ap2', { outcome: 'selected', optionId: 'no' })).status).toBe(202);
    const changed = await run.answer('ap2', { outcome: 'selected', optionId: 'yes' });
    expect(changed.status).toBe(409);
    expect(changed.json.error).toEqual({
      code: 'conflict',
      message:
        'approval "ap2" is already resolved (selected "no" by "local"); only a repeat of the answer that resolved it is accepted',
      field: 'params.approvalId',
    });
    await run.end();
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
