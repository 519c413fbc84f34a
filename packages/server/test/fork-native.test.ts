import {
  type EngineDriver,
  ForkRefusedError,
  type ForkSessionRequest,
  type SessionBinding,
} from '@agentlane/engine-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyJson, postJson, readJson, startTestServer, type TestServer } from './support/harness';
import { createScriptedDriver } from './support/scripted-engine';

/**
 * POST /sessions/:id/fork {runId} against an engine whose driver forks natively (a scripted one): what the
 * route hands the driver, the binding the new thread starts with (and its first open receives), and the
 * errors naming the fork point. The real engines' forks are tested in testing/engines (*-fork-http).
 */
const asked: ForkSessionRequest[] = [];
const opened: (SessionBinding | undefined)[] = [];
let failWith: Error | null = null;

function forkingDriver(): EngineDriver {
  const scripted = createScriptedDriver('forking');
  return {
    ...scripted,
    async openSession(options) {
      opened.push(options.previous);
      return scripted.openSession(options);
    },
    async forkSession(request) {
      asked.push(request);
      if (failWith) throw failWith;
      if (!request.point.atEnd) throw new ForkRefusedError('forks only after the latest run');
      return { ...request.source, nativeSessionId: `fork-of-${request.source.nativeSessionId}` };
    },
  };
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({}, { drivers: [forkingDriver()] });
});
afterAll(async () => {
  await t.close();
});

async function settled(runId: string): Promise<AnyJson> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { run } = await readJson(await fetch(`${t.api}/runs/${runId}`));
    if (run.outcome !== null) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

async function run(threadId: string, prompt: string, wait = true): Promise<string> {
  const created = await postJson(`${t.api}/threads/${threadId}/runs`, { prompt });
  expect(created.status).toBe(201);
  const runId = created.json.run.runId as string;
  if (wait) await settled(runId);
  return runId;
}

const fork = (threadId: string, body: unknown) => postJson(`${t.api}/sessions/${threadId}/fork`, body);

describe('fork after a run (engines that fork natively)', () => {
  it('binds the new thread to the driver’s fork; its first run opens it as the previous session', async () => {
    const origin = await t.createSession({}, 'forking');
    const first = await run(origin, 'hello');
    const forked = await fork(origin, { runId: first, title: 'Branch' });
    expect(forked.status).toBe(201);
    // The cut a reader shows the origin's history up to: the whole run, and what came before its end.
    const ended = (await readJson(await fetch(`${t.api}/runs/${first}`))).run.endedAt as string;
    expect(forked.json.forkedFrom).toEqual({
      threadId: origin,
      runId: first,
      stageId: 'post-turn',
      at: ended,
      headSeq: expect.any(Number),
    });
    expect(forked.json.checkpointId).toBeUndefined();
    expect(forked.json.session).toMatchObject({
      engine: 'forking',
      title: 'Branch',
      nativeSessionId: 'fork-of-native-1',
      metadata: { forkedFrom: { threadId: origin, runId: first } },
    });
    const request = asked.at(-1);
    expect(request?.source.nativeSessionId).toBe('native-1');
    expect(request?.point).toEqual({ atEnd: true, nativeMessageIds: [] });

    const forkId = forked.json.session.id as string;
    opened.length = 0;
    await run(forkId, 'again');
    expect(opened[0]?.nativeSessionId).toBe('fork-of-native-1');
    // The origin keeps its own session.
    expect((await readJson(await fetch(`${t.api}/sessions/${origin}`))).session.nativeSessionId).toBe(
      'native-1',
    );
  });

  it('answers 409 naming body.runId when the driver refuses the point, 503 when the engine fails', async () => {
    const origin = await t.createSession({}, 'forking');
    const first = await run(origin, 'one');
    const second = await run(origin, 'two');
    const refused = await fork(origin, { runId: first });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ code: 'conflict', field: 'body.runId' });
    expect(refused.json.error.message).toContain('latest run');
    expect(asked.at(-1)?.point.atEnd).toBe(false);

    failWith = new Error('the engine is gone');
    try {
      const failed = await fork(origin, { runId: second });
      expect(failed.status).toBe(503);
      expect(failed.json.error.message).toContain('the engine is gone');
    } finally {
      failWith = null;
    }
  });

  it('refuses engines that cannot fork, unfinished and unknown runs, and a body without one fork point', async () => {
    const plain = await t.createSession();
    const plainRun = await run(plain, 'hi');
    const cannot = await fork(plain, { runId: plainRun });
    expect(cannot.status).toBe(409);
    expect(cannot.json.error.field).toBe('body.runId');
    expect(cannot.json.error.message).toContain('checkpointId');

    const origin = await t.createSession({}, 'forking');
    const waiting = await run(origin, 'approve', false);
    const unfinished = await fork(origin, { runId: waiting });
    expect(unfinished.status).toBe(409);
    expect(unfinished.json.error.message).toContain('has not finished');

    const unknown = await fork(origin, { runId: plainRun });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.field).toBe('body.runId');

    for (const body of [{}, { runId: waiting, checkpointId: 'x' }]) {
      const bad = await fork(origin, body);
      expect(bad.status).toBe(400);
      expect(bad.json.error).toMatchObject({ code: 'invalid_request', field: 'body' });
    }
    await postJson(`${t.api}/runs/${waiting}/approvals/ap1`, { outcome: 'selected', optionId: 'yes' });
    await settled(waiting);
  });

  it('is in the OpenAPI document with both fork points and its 409', async () => {
    const doc = await readJson(await fetch(`${t.api}/openapi.json`));
    const op = doc.paths['/api/harness/sessions/{id}/fork'].post;
    const schema = op.requestBody.content['application/json'].schema;
    expect(Object.keys(schema.properties)).toEqual(['checkpointId', 'runId', 'title']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['201', '400', '404', '409']));
  });
});
