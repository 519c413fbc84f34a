import { parseShape } from '@agentlane/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startTestServer, type TestServer } from './support/harness';

// GET /sessions/:id/runs/:runId/frames: a run's native frames with their raw sidecar, scope-checked.

const ADMIN = 'token-admin-0123456789';
const ALICE = 'token-alice-0123456789';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let t: TestServer;
let runId: string;
let otherRunId: string;

beforeAll(async () => {
  t = await startTestServer(
    {
      tokens: [
        { token: ADMIN, threads: '*', name: 'admin' },
        { token: ALICE, threads: ['thr-a'], name: 'alice' },
      ],
    },
    { execute: false },
  );
  for (const threadId of ['thr-a', 'thr-b'])
    await t.store.createThread({
      threadId,
      engine: 'scripted',
      title: threadId,
      workDir: null,
      metadata: {},
    });
  runId = (await t.store.createRun({ threadId: 'thr-a', prompt: 'hi' })).run.runId;
  otherRunId = (await t.store.createRun({ threadId: 'thr-b', prompt: 'hi' })).run.runId;
  await t.store.appendFrames(runId, [
    {
      receivedAt: '2026-01-01T00:00:00.000Z',
      frame: { t: 'text', text: 'one' },
      raw: '{"t":"text","text":"one"}',
    },
    { receivedAt: '2026-01-01T00:00:01.000Z', frame: { t: 'text', text: 'two' } },
    { receivedAt: '2026-01-01T00:00:02.000Z', frame: { t: 'bin' }, raw: new Uint8Array([0xff, 0xfe, 0x00]) },
  ]);
});
afterAll(async () => {
  await t.close();
});

const get = (path: string, token = ADMIN) => fetch(`${t.api}${path}`, { headers: bearer(token) });

describe('GET /sessions/:id/runs/:runId/frames', () => {
  it('lists the frames in order with their raw sidecar (text, base64 or none)', async () => {
    const res = await get(`/sessions/thr-a/runs/${runId}/frames`);
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.nextAfter).toBeNull();
    expect(body.frames.map((f: { nativeSeq: number }) => f.nativeSeq)).toEqual([1, 2, 3]);
    expect(body.frames[0].frame).toEqual({ t: 'text', text: 'one' });
    expect(body.frames[0].raw).toMatchObject({
      storage: 'inline',
      text: '{"t":"text","text":"one"}',
      bytes: 25,
    });
    expect(body.frames[0].raw.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(body.frames[1].raw).toBeNull();
    expect(body.frames[2].raw).toMatchObject({ storage: 'inline', base64: '//4A', bytes: 3 });
  });

  it('pages with after and limit', async () => {
    const first = await readJson(await get(`/sessions/thr-a/runs/${runId}/frames?limit=2`));
    expect(first.frames.map((f: { nativeSeq: number }) => f.nativeSeq)).toEqual([1, 2]);
    expect(first.nextAfter).toBe(2);
    const second = await readJson(await get(`/sessions/thr-a/runs/${runId}/frames?after=2&limit=2`));
    expect(second.frames.map((f: { nativeSeq: number }) => f.nativeSeq)).toEqual([3]);
    expect(second.nextAfter).toBeNull();
  });

  it('answers JSON errors: unknown run, a run of another thread, bad query, out of scope', async () => {
    const missing = await get('/sessions/thr-a/runs/run_nope/frames');
    expect(missing.status).toBe(404);
    expect((await readJson(missing)).error).toMatchObject({ code: 'not_found', field: 'params.runId' });
    // Alice's thread id with another thread's run: not found, so nothing about thr-b leaks.
    const foreign = await get(`/sessions/thr-a/runs/${otherRunId}/frames`, ALICE);
    expect(foreign.status).toBe(404);
    const bad = await get(`/sessions/thr-a/runs/${runId}/frames?limit=0`);
    expect(bad.status).toBe(400);
    expect((await readJson(bad)).error).toMatchObject({ code: 'invalid_request' });
    const scoped = await get(`/sessions/thr-b/runs/${otherRunId}/frames`, ALICE);
    expect(scoped.status).toBe(403);
    expect((await readJson(scoped)).error.code).toBeTypeOf('string');
  });

  it('answers the contract’s FramePage (the typed client’s listFrames reads it)', async () => {
    const body = await readJson(await get(`/sessions/thr-a/runs/${runId}/frames?limit=2`));
    expect(parseShape('FramePage', body)).toMatchObject({ ok: true });
    expect(parseShape('FramePage', { ...body, extra: 1 })).toMatchObject({ ok: false });
  });

  it('is in the OpenAPI document', async () => {
    const doc = await readJson(await fetch(`${t.api}/openapi.json`));
    const op = doc.paths['/api/harness/sessions/{id}/runs/{runId}/frames']?.get;
    expect(op).toBeDefined();
    expect(Object.keys(op.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '414',
      '429',
      '431',
      '503',
    ]);
  });
});
