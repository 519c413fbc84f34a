import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AuditableCall, JsonValue } from '@agentlane/contract';
import { createExternalDriver, externalTranslator } from '@agentlane/engine-kit';
import type { Store } from '@agentlane/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReader } from '../src/routes/audit';
import { postJson, readJson, startTestServer, type TestServer } from './support/harness';
import { SseReader } from './support/sse-reader';

// POST /runs/:id/events: a runtime outside the process (engine type external) adds its turn to a thread.
let t: TestServer;
const audit: AuditableCall[] = [];
/** The rows the lane recorded, read back as a ledger would: cursor = the index of the next row. */
const ledger: AuditReader = {
  async list(sessionId, { limit = 100, cursor }) {
    if (cursor !== undefined && !/^\d+$/.test(cursor))
      throw Object.assign(new Error(`cursor is not a cursor this server issued: ${cursor}`), {
        code: 'bad_cursor',
      });
    const rows = audit.filter((r) => r.session_id === sessionId);
    const start = Number(cursor ?? 0);
    const next = start + limit < rows.length ? String(start + limit) : null;
    return { items: rows.slice(start, start + limit), nextCursor: next };
  },
};
/** While set, a batch of frames holding a draft keyed `held` waits for it before it is stored. */
let hold: Promise<void> | undefined;
const holdingFrames = (store: Store): Store => {
  const append = store.appendFrames.bind(store);
  store.appendFrames = async (runId, frames, options) => {
    if (hold && JSON.stringify(frames).includes('"key":"held"')) await hold;
    return append(runId, frames, options);
  };
  return store;
};
beforeAll(async () => {
  t = await startTestServer(
    { audit: ledger },
    {
      wrapStore: holdingFrames,
      drivers: [
        createExternalDriver({ name: 'outside' }),
        createExternalDriver({ name: 'quiet', idleTimeoutMs: 300 }),
      ],
      audit: { record: async (rows) => audit.push(...rows) },
    },
  );
});
afterAll(async () => {
  await t.close();
});

const eventId = (runId: string, key: string) =>
  `ev_${createHash('sha256').update(runId).update('\0').update(key).digest('hex').slice(0, 32)}`;

// The contract's own valid example of a model-call row, placed in the run.
const example = JSON.parse(
  readFileSync(new URL('../../contract/test/fixtures/valid/audit-model-call.json', import.meta.url), 'utf8'),
).value as AuditableCall;
const row = (threadId: string, runId: string, seq: number): AuditableCall => ({
  ...example,
  session_id: threadId,
  turn_id: runId,
  seq_within_turn: seq,
});

const startRun = async (engine: string) => {
  const threadId = await t.createSession({}, engine);
  const created = await postJson(`${t.api}/threads/${threadId}/runs`, { prompt: 'hi' });
  expect(created.status).toBe(201);
  return { threadId, runId: created.json.run.runId as string };
};

describe('an external runtime adds its turn through POST /runs/:id/events', () => {
  it('events keep their keys as eventIds, audit rows reach the ledger, end canonicalizes the run', async () => {
    const { threadId, runId } = await startRun('outside');
    const stream = new SseReader(`${t.api}/threads/${threadId}/events`);
    const first = await postJson(`${t.api}/runs/${runId}/events`, {
      events: [
        { key: 'turn.started', kind: 'turn.started', payload: { prompt: 'hi' } },
        {
          key: 'message.started:m1',
          kind: 'message.started',
          payload: { messageId: 'm1', role: 'assistant' },
        },
        {
          key: 'message.delta:m1:0',
          kind: 'message.delta',
          payload: { messageId: 'm1', partId: 'm1', delta: 'hel' },
        },
      ],
    });
    expect(first.status).toBe(202);
    expect(first.json).toEqual({ accepted: true, frames: 3, ended: false });
    const last = await postJson(`${t.api}/runs/${runId}/events`, {
      events: [
        {
          key: 'message.delta:m1:3',
          kind: 'message.delta',
          payload: { messageId: 'm1', partId: 'm1', delta: 'lo' },
        },
        {
          key: 'message.completed:m1',
          kind: 'message.completed',
          payload: { messageId: 'm1', role: 'assistant', text: 'hello' },
        },
        {
          key: 'child:c1:usage:turn',
          kind: 'usage.updated',
          payload: { scope: 'turn', inputTokens: 1, outputTokens: 1 },
          namespace: [`${threadId}:task:c1`],
        },
        { key: 'turn.completed', kind: 'turn.completed', payload: { stopReason: 'end_turn' } },
      ],
      audit: [row(threadId, runId, 1)],
      end: { outcome: 'completed' },
    });
    expect(last.json).toEqual({ accepted: true, frames: 5, ended: true });

    await stream.waitFor((r) => r.events.some((e) => e.type === 'run.canonicalized'));
    stream.close();
    const rows = stream.events.flatMap((e) => ('event' in e ? [e] : []));
    expect(rows.map((e) => e.event.kind)).toEqual([
      'turn.started',
      'message.started',
      'message.delta',
      'message.delta',
      'message.completed',
      'usage.updated',
      'turn.completed',
    ]);
    expect(rows[0]?.event.eventId).toBe(eventId(runId, 'turn.started'));
    expect(rows[0]?.event.identity.provider).toBe('external');
    expect(rows[5]?.namespace).toEqual([`${threadId}:task:c1`]);
    expect(rows.filter((e) => e.event.kind === 'turn.completed')).toHaveLength(1);
    // The live pass and the final pass both record it; the ledger's idempotency key makes the second a no-op.
    const recorded = audit.filter((r) => r.turn_id === runId);
    expect(recorded.length).toBeGreaterThan(0);
    for (const r of recorded) expect(r).toEqual(row(threadId, runId, 1));
    const run = await readJson(await fetch(`${t.api}/runs/${runId}`));
    expect(run.run).toMatchObject({ status: 'completed', outcome: 'completed' });

    // The run has ended: nothing more is taken.
    const late = await postJson(`${t.api}/runs/${runId}/events`, { events: [] });
    expect(late.status).toBe(409);
    expect(late.json.error).toMatchObject({ code: 'conflict', field: 'params.id' });
  });

  it('answers 202 only once the frames are stored in the source lane (a crash after it loses none)', async () => {
    const { runId } = await startRun('outside');
    let released = false;
    hold = new Promise<void>((resolve) =>
      setTimeout(() => {
        released = true;
        resolve();
      }, 300),
    );
    const res = await postJson(`${t.api}/runs/${runId}/events`, {
      events: [{ key: 'held', kind: 'turn.started', payload: { prompt: 'hi' } }],
    });
    hold = undefined;
    // Before: the answer went out as soon as the frames were queued, while their commit was still held.
    expect(released).toBe(true);
    expect(res.status).toBe(202);
    const frames = await t.store.readFrames(runId);
    expect(JSON.stringify(frames)).toContain('"key":"held"');
    const end = await postJson(`${t.api}/runs/${runId}/events`, { end: { outcome: 'completed' } });
    expect(end.json).toEqual({ accepted: true, frames: 0, ended: true });
  });

  it('refuses a request with a bad item whole, naming the field', async () => {
    const { threadId, runId } = await startRun('outside');
    const bad = await postJson(`${t.api}/runs/${runId}/events`, {
      events: [
        { key: 'turn.started', kind: 'turn.started', payload: { prompt: 'hi' } },
        { key: 'm', kind: 'message.delta', payload: { messageId: 'm1', delta: 'x' } },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'invalid_request', field: 'body.events[1].payload.partId' });
    const unknownKind = await postJson(`${t.api}/runs/${runId}/events`, {
      events: [{ key: 'k', kind: 'no.such.kind', payload: {} }],
    });
    expect(unknownKind.status).toBe(400);
    expect(unknownKind.json.error.field).toMatch(/^body\.events\[0\]/);
    const foreign = await postJson(`${t.api}/runs/${runId}/events`, {
      audit: [{ ...row(threadId, runId, 1), session_id: 'another-thread' }],
    });
    expect(foreign.status).toBe(400);
    expect(foreign.json.error).toMatchObject({ code: 'invalid_request', field: 'body.audit[0].session_id' });
    // A child with no name after the colon (it made a child session named "").
    for (const [field, patch] of [
      ['session_id', { session_id: `${threadId}:` }],
      ['turn_id', { turn_id: `${runId}:` }],
    ] as const) {
      const unnamed = await postJson(`${t.api}/runs/${runId}/events`, {
        audit: [{ ...row(threadId, runId, 1), ...patch }],
      });
      expect([unnamed.status, unnamed.json.error.field]).toEqual([400, `body.audit[0].${field}`]);
    }
    const shape = await postJson(`${t.api}/runs/${runId}/events`, { frames: [] });
    expect(shape.status).toBe(400);
    // The message names the missing property by its full path, not only the item it is missing from.
    const missing = await postJson(`${t.api}/runs/${runId}/events`, {
      events: [{ key: 'm', kind: 'message.started', payload: {} }],
    });
    expect([missing.status, missing.json.error]).toEqual([
      400,
      {
        code: 'invalid_request',
        message: 'body.events[0].payload.messageId is required',
        field: 'body.events[0].payload.messageId',
      },
    ]);
    const noSession = await postJson(`${t.api}/runs/${runId}/events`, {
      audit: [{ ...row(threadId, runId, 1), session_id: undefined }],
    });
    expect(noSession.json.error).toMatchObject({
      message: 'body.audit[0].session_id is required',
      field: 'body.audit[0].session_id',
    });
    await postJson(`${t.api}/runs/${runId}/events`, { end: { outcome: 'completed' } });
  });

  it('answers 404 for an unknown run and 409 for a run of an engine that runs its own turns', async () => {
    const missing = await postJson(`${t.api}/runs/run_nope/events`, { events: [] });
    expect(missing.status).toBe(404);
    expect(missing.json.error).toEqual({
      code: 'not_found',
      message: 'run "run_nope" not found',
      field: 'params.id',
    });
    const { runId } = await startRun('scripted');
    const own = await postJson(`${t.api}/runs/${runId}/events`, { events: [] });
    expect(own.status).toBe(409);
    expect(own.json.error).toMatchObject({ code: 'conflict', field: 'params.id' });
  });

  it('a runtime that goes silent fails its turn, which still ends with turn.completed', async () => {
    const { threadId, runId } = await startRun('quiet');
    const stream = new SseReader(`${t.api}/threads/${threadId}/events`);
    await postJson(`${t.api}/runs/${runId}/events`, {
      events: [{ key: 'turn.started', kind: 'turn.started', payload: { prompt: 'hi' } }],
    });
    await stream.waitFor((r) => r.events.some((e) => e.type === 'run.canonicalized'));
    stream.close();
    const kinds = stream.events.flatMap((e) => ('event' in e ? [e.event] : []));
    expect(kinds.map((e) => e.kind)).toEqual(['turn.started', 'harness.error', 'turn.completed']);
    expect(kinds[1]?.payload).toMatchObject({
      code: 'turn_failed',
      message: 'the external runtime sent nothing for 300 ms',
    });
    expect(kinds[2]?.payload).toEqual({ stopReason: 'error' });
    const run = await readJson(await fetch(`${t.api}/runs/${runId}`));
    expect(run.run).toMatchObject({ status: 'failed' });
  });

  it('GET /sessions/:id/audit reads a session and its child sessions; one that does not exist is 404', async () => {
    const { threadId, runId } = await startRun('outside');
    const child = `${threadId}:task:c1`;
    await postJson(`${t.api}/runs/${runId}/events`, {
      events: [{ key: 'turn.started', kind: 'turn.started', payload: { prompt: 'hi' } }],
      audit: [row(threadId, runId, 1), row(child, `${runId}:task:c1`, 1)],
      end: { outcome: 'completed' },
    });
    await expect
      .poll(async () => (await readJson(await fetch(`${t.api}/runs/${runId}`))).run.status)
      .toBe('completed');
    const read = async (session: string, query = '') => {
      const res = await fetch(`${t.api}/sessions/${encodeURIComponent(session)}/audit${query}`);
      return { status: res.status, json: await readJson(res) };
    };
    expect((await read(threadId)).json.calls.length).toBeGreaterThan(0);
    expect((await read(child)).json.calls[0]).toMatchObject({ session_id: child });
    // A cursor is echoed as a JSON string, its control characters escaped.
    expect((await read(threadId, '?cursor=%1B%5B31mRED')).json.error).toEqual({
      code: 'invalid_request',
      message: 'cursor "\\u001b[31mRED" is not a cursor this server issued',
      field: 'query.cursor',
    });
    const notFound = (id: string) => ({
      status: 404,
      json: { error: { code: 'not_found', message: `session "${id}" not found`, field: 'params.id' } },
    });
    expect(await read('nope')).toEqual(notFound('nope'));
    expect(await read('nope:task:c1')).toEqual(notFound('nope:task:c1'));
    // A child of a live thread that never wrote a row does not exist either (it was 200 with no rows).
    expect(await read(`${threadId}:task:never`)).toEqual(notFound(`${threadId}:task:never`));
    // Deleted: the ledger keeps its rows (append-only), the route answers as for any session that is gone.
    expect((await fetch(`${t.api}/sessions/${threadId}`, { method: 'DELETE' })).status).toBe(204);
    expect(await read(threadId)).toEqual(notFound(threadId));
    expect(await read(child)).toEqual(notFound(child));
    expect(audit.some((r) => r.session_id === child)).toBe(true);
  });

  it('the translator turns a frame that is not an event or audit row into a warning, never a throw', () => {
    const ctx = { threadId: 't', runId: 'r', turnId: 'r', provider: 'external' };
    const state = externalTranslator.initialState(ctx);
    const frames: JsonValue[] = [
      null,
      1,
      'x',
      [],
      { event: 1 },
      { audit: {} },
      { event: {}, audit: {} },
      { harness: 'turn.started', prompt: 'p' },
    ];
    for (const frame of frames) {
      const step = externalTranslator.translate(
        { runId: 'r', nativeSeq: 1, receivedAt: 'x', frame },
        state,
        ctx,
      );
      for (const e of step.events) expect(e.draft.kind).toBe('harness.warning');
    }
  });
});
