import type { StreamEvent } from '@agentlane/contract';
import { type EngineDriver, isHarnessFrame, type Translator } from '@agentlane/engine-kit';
import type { Store } from '@agentlane/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentlaneServer, createServer } from '../src';
import { postJson, readJson, startTestServer, type TestServer } from './support/harness';
import { createScriptedDriver } from './support/scripted-engine';
import { SseReader } from './support/sse-reader';

/**
 * An engine whose turn asks four things: `q1` and `ap1`, which it resolves itself (no answer of the API
 * involved), `q2`, which it never waits for (its answer stays recorded, undelivered), and `q3`, which it
 * waits for and reports (`q3:<choices>`); then it runs until cancelled.
 */
function askingDriver(): EngineDriver {
  const scripted = createScriptedDriver('asking');
  const question = (id: string) => ({
    kind: 'question.requested' as const,
    payload: {
      questionId: id,
      prompt: 'Which one?',
      choices: [
        { id: 'a', label: 'A' },
        { id: 'b', label: 'B' },
      ],
      multiple: true,
      allowFreeText: true,
    },
  });
  const translator: Translator = {
    ...scripted.translator,
    translate(record, state, ctx) {
      const key = `k${record.nativeSeq}`;
      const one = (draft: object) =>
        ({ state, events: [{ key, draft }] }) as ReturnType<Translator['translate']>;
      const h = record.frame;
      if (isHarnessFrame(h) && h.harness === 'question.answered')
        return one({
          kind: 'question.resolved',
          payload: {
            questionId: h.questionId,
            outcome: h.outcome,
            ...(h.outcome === 'answered'
              ? {
                  answer: { choiceIds: h.choiceIds ?? [], ...(h.text !== undefined ? { text: h.text } : {}) },
                }
              : {}),
            ...(h.answeredBy ? { answeredBy: h.answeredBy } : {}),
          },
        });
      const frame = record.frame as { t?: string; id?: string; choice?: string };
      if (frame.t === 'question') return one(question(String(frame.id)));
      if (frame.t === 'question-resolved')
        return one({
          kind: 'question.resolved',
          payload: {
            questionId: String(frame.id),
            outcome: 'answered',
            answer: { choiceIds: [frame.choice] },
          },
        });
      if (frame.t === 'approval-resolved')
        return one({
          kind: 'approval.resolved',
          payload: { approvalId: String(frame.id), outcome: 'selected', optionId: 'yes' },
        });
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
          io.emit({ t: 'question', id: 'q1' });
          io.emit({ t: 'question-resolved', id: 'q1', choice: 'b' });
          io.emit({ t: 'approval', id: 'ap1' });
          io.emit({ t: 'approval-resolved', id: 'ap1' });
          io.emit({ t: 'question', id: 'q2' });
          io.emit({ t: 'question', id: 'q3' });
          const q3 = await io.awaitQuestion('q3');
          io.emit({ t: 'text', text: `q3:${(q3.choiceIds ?? []).join(',')}` });
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
  t = await startTestServer({}, { drivers: [askingDriver()] });
});
afterAll(async () => {
  await t.close();
});

const isEvent = (e: StreamEvent, kind: string, test: (payload: Record<string, unknown>) => boolean) =>
  'event' in e && e.event.kind === kind && test(e.event.payload as unknown as Record<string, unknown>);

/** A run of the asking engine once it waits for q3; answers go to `api` (this server's unless another). */
async function waitingRun(api = t.api) {
  const id = await t.createSession({}, 'asking');
  const stream = new SseReader(`${t.api}/threads/${id}/events`);
  const created = await postJson(`${t.api}/threads/${id}/runs`, { prompt: 'go' });
  expect(created.status).toBe(201);
  const runId = created.json.run.runId as string;
  await stream.waitFor((r) =>
    r.events.some((e) => isEvent(e, 'question.requested', (p) => p.questionId === 'q3')),
  );
  /** A raw JSON body, sent as written (key order and whitespace are the test's). */
  const raw = async (path: string, body: string) => {
    const res = await fetch(`${api}/runs/${runId}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
  return {
    runId,
    stream,
    question: (questionId: string, body: object) => raw(`questions/${questionId}`, JSON.stringify(body)),
    approval: (approvalId: string, body: object) => raw(`approvals/${approvalId}`, JSON.stringify(body)),
    raw,
    async end() {
      expect((await postJson(`${t.api}/runs/${runId}/cancel`, {})).status).toBe(202);
      await stream.waitFor((r) => r.events.some((e) => e.type === 'run.canonicalized'));
      stream.close();
    },
  };
}

describe('answers to questions already answered or resolved', () => {
  it('a question the engine resolved itself refuses every answer (409 naming params.questionId)', async () => {
    const run = await waitingRun();
    // Even the choice it was resolved with: this client did not answer it, and the answer would reach nothing.
    for (const body of [{ outcome: 'answered', choiceIds: ['b'] }, { outcome: 'declined' }]) {
      const late = await run.question('q1', body);
      expect(late.status).toBe(409);
      expect(late.json.error).toEqual({
        code: 'conflict',
        message:
          'question "q1" is already resolved (answered "b"); only a repeat of the answer that resolved it is accepted',
        field: 'params.questionId',
      });
    }
    await run.end();
  });

  it('a question answered first by a client: the same answer (any key order, whitespace) is 202 again, another 409', async () => {
    const run = await waitingRun();
    // q2 is asked but never awaited: its first answer is recorded and stays undelivered.
    expect((await run.question('q2', { outcome: 'answered', choiceIds: ['a'], text: 'x' })).status).toBe(202);
    const again = await run.raw(
      'questions/q2',
      '{ "text" : "x",\n  "choiceIds": [ "a" ], "outcome":"answered" }',
    );
    expect(again).toEqual({ status: 202, json: { accepted: true } });
    for (const body of [
      { outcome: 'answered', choiceIds: ['a'], text: 'y' },
      { outcome: 'answered', choiceIds: ['a'] },
      { outcome: 'declined' },
    ]) {
      const other = await run.question('q2', body);
      expect(other.status).toBe(409);
      expect(other.json.error).toEqual({
        code: 'conflict',
        message: 'question "q2" was already answered differently; only its first answer counts',
        field: 'params.questionId',
      });
    }
    await run.end();
  });

  it('a question resolved by this client answer: a repeat is 202, another answer 409 naming how it was resolved', async () => {
    const run = await waitingRun();
    const body = { outcome: 'answered', choiceIds: ['a', 'b'], text: 'both' };
    expect((await run.question('q3', body)).status).toBe(202);
    await run.stream.waitFor((r) =>
      r.events.some((e) => isEvent(e, 'message.delta', (p) => p.delta === 'q3:a,b')),
    );
    expect(run.stream.events.some((e) => isEvent(e, 'question.resolved', (p) => p.questionId === 'q3'))).toBe(
      true,
    );
    expect(
      await run.raw('questions/q3', '{"choiceIds":["a","b"],"outcome":"answered","text":"both"}'),
    ).toEqual({
      status: 202,
      json: { accepted: true },
    });
    // The choices in another order are another answer.
    const changed = await run.question('q3', { ...body, choiceIds: ['b', 'a'] });
    expect(changed.status).toBe(409);
    expect(changed.json.error).toEqual({
      code: 'conflict',
      message:
        'question "q3" is already resolved (answered "a", "b" with text by "local"); only a repeat of the answer that resolved it is accepted',
      field: 'params.questionId',
    });
    await run.end();
  });
});

describe('the OpenAPI document', () => {
  it('documents the 409 of both answer routes, naming the field of each', async () => {
    const doc = await readJson(await fetch(`${t.api}/openapi.json`));
    for (const [path, field] of [
      ['/api/harness/runs/{id}/questions/{questionId}', 'params.questionId'],
      ['/api/harness/runs/{id}/approvals/{approvalId}', 'params.approvalId'],
    ] as const) {
      const responses = doc.paths[path].post.responses;
      expect(responses['409'].description).toContain(`\`${field}\``);
      expect(responses['409'].description).toContain('already resolved');
      expect(responses['409'].content['application/json'].schema.required).toEqual(['error']);
      expect(doc.paths[path].post.description).toContain('canonical JSON');
    }
  });
});

describe('an answer racing the engine resolution', () => {
  let racing: AgentlaneServer;
  let api: string;
  beforeAll(async () => {
    // The route reads the run's events before the store records the answer: this store hides every
    // resolution from that read, as if the engine's resolution were committed just after it. Only the
    // store's own check, in the transaction that records the answer, can still refuse it.
    const store = new Proxy(t.store, {
      get(target, prop) {
        if (prop === 'latestEvents')
          return async (query: Parameters<Store['latestEvents']>[0]) =>
            (await target.latestEvents(query)).filter((r) => !r.kind.endsWith('.resolved'));
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    racing = await createServer({
      store,
      lane: t.lane,
      engines: t.server.context.engines,
      defaultWorkDir: t.server.context.defaultWorkDir,
    });
    await racing.app.listen({ host: '127.0.0.1', port: 0 });
    const address = racing.app.server.address();
    api = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/harness`;
  });
  afterAll(async () => {
    await racing.shutdown();
  });

  it('an answer to a request the engine resolved after the route read it is 409, never recorded', async () => {
    const run = await waitingRun(api);
    const question = await run.question('q1', { outcome: 'answered', choiceIds: ['a'] });
    expect(question.status).toBe(409);
    expect(question.json.error).toEqual({
      code: 'conflict',
      message: 'question "q1" is already resolved; only a repeat of the answer that resolved it is accepted',
      field: 'params.questionId',
    });
    const approval = await run.approval('ap1', { outcome: 'selected', optionId: 'no' });
    expect(approval.status).toBe(409);
    expect(approval.json.error).toEqual({
      code: 'conflict',
      message: 'approval "ap1" is already resolved; only a repeat of the answer that resolved it is accepted',
      field: 'params.approvalId',
    });
    // Nothing was recorded for either: the answers lost to the engine's resolutions.
    expect(await t.store.pendingAnswers(run.runId)).toEqual([]);
    await run.end();
  });
});
