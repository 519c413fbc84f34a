import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentlaneClient, ApiError } from '../src';

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

let server: Server;
let client: AgentlaneClient;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const path = req.url ?? '';
      seen.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: raw ? JSON.parse(raw) : undefined,
      });
      if (path.includes('/bad')) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { code: 'invalid_body', message: 'prompt is required', field: 'prompt' } }),
        );
      } else if (path.endsWith('/execute')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"type":"run.status","threadId":"t","runId":"r","status":"running"}\n\n');
        res.write('data: {"type":"not.known"}\n\n');
        res.end('data: {"type":"run.status","threadId":"t","runId":"r","status":"completed"}\n\n');
      } else if (path.startsWith('/api/harness/artifacts/')) {
        res.writeHead(206, { 'content-type': 'text/plain', etag: '"abc"' });
        res.end('hello');
      } else if (req.method === 'DELETE') {
        res.writeHead(204);
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            path.includes('/runs')
              ? { run: { runId: 'r1', threadId: 't1', status: 'queued' }, created: true }
              : { ok: true },
          ),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new AgentlaneClient({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: 'tok',
  });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('AgentlaneClient', () => {
  it('calls every route with its method, path and body', async () => {
    seen.length = 0;
    await client.listSessions({ engine: 'x', limit: 5 });
    await client.createSession({ engine: 'x', workDir: '/tmp' });
    await client.getSession('s 1');
    await client.updateSession('s1', { title: 't' });
    await client.deleteSession('s1');
    await client.syncSession('s1', { clientId: 'c', vector: { c: 1 }, changes: [] });
    await client.health();
    const run = await client.createRun('t1', { prompt: 'hi', parentRunId: 'r0' }, { idempotencyKey: 'k1' });
    await client.cancelRun('r1');
    await client.getRun('r1');
    await client.answerApproval('r1', 'a1', { outcome: 'selected', optionId: 'ok' });
    await client.answerQuestion('r1', 'q1', { outcome: 'answered', choiceIds: ['c'] });
    await client.forkSession('s1', { checkpointId: 'cp1' });
    await client.listFrames('t1', 'r 1', { after: 2, limit: 10 });
    await client.listFrames('t1', 'r1');
    expect(run).toEqual({ runId: 'r1', threadId: 't1', status: 'queued' });
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /api/harness/sessions?engine=x&limit=5',
      'POST /api/harness/sessions',
      'GET /api/harness/sessions/s%201',
      'PUT /api/harness/sessions/s1',
      'DELETE /api/harness/sessions/s1',
      'POST /api/harness/sessions/s1/sync',
      'GET /api/harness/health',
      'POST /api/harness/threads/t1/runs',
      'POST /api/harness/runs/r1/cancel',
      'GET /api/harness/runs/r1',
      'POST /api/harness/runs/r1/approvals/a1',
      'POST /api/harness/runs/r1/questions/q1',
      'POST /api/harness/sessions/s1/fork',
      'GET /api/harness/sessions/t1/runs/r%201/frames?after=2&limit=10',
      'GET /api/harness/sessions/t1/runs/r1/frames',
    ]);
    expect(seen[12]?.body).toEqual({ checkpointId: 'cp1' });
    expect(seen[7]?.headers['idempotency-key']).toBe('k1');
    expect(seen[7]?.body).toEqual({ prompt: 'hi', parentRunId: 'r0' });
    expect(seen.every((s) => s.headers.authorization === 'Bearer tok')).toBe(true);
  });

  it('forks a session from a checkpoint or after a run', async () => {
    seen.length = 0;
    await client.forkSession('s1', { checkpointId: 'cp1' });
    await client.forkSession('s 1', { runId: 'r1', title: 'Branch' });
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      'POST /api/harness/sessions/s1/fork',
      'POST /api/harness/sessions/s%201/fork',
    ]);
    expect(seen.map((s) => s.body)).toEqual([{ checkpointId: 'cp1' }, { runId: 'r1', title: 'Branch' }]);
  });

  it('streams execute as typed StreamEvents, skipping unknown types', async () => {
    const types: string[] = [];
    for await (const event of client.execute('s1', { prompt: 'go' })) types.push(event.type);
    expect(types).toEqual(['run.status', 'run.status']);
  });

  it('fetches an artifact with a range and its ETag', async () => {
    const artifact = await client.getArtifact('a1', { range: { start: 0, end: 4 } });
    expect(artifact.text()).toBe('hello');
    expect(artifact.etag).toBe('"abc"');
    expect(seen[seen.length - 1]?.headers.range).toBe('bytes=0-4');
  });

  it('turns an error body into an ApiError naming the field', async () => {
    const error = await client.getSession('bad').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_body', field: 'prompt', permanent: true });
  });
});
