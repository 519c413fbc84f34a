import { sessionStateOf } from '@agentlane/checkpoints/session-state';
import type { Checkpoint } from '@agentlane/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltinServe, startBuiltinServe } from '../e2e/helpers/builtin-serve';

/**
 * POST /sessions/:id/fork against `agentlane serve` with the built-in engine on the fake model server: the
 * forked thread's first model request carries the history up to the chosen checkpoint and nothing after
 * it, and the old thread is untouched. No browser (the web dist is not needed).
 */
let serve: BuiltinServe;

beforeAll(async () => {
  serve = await startBuiltinServe(undefined, (request) => ({ text: `echo: ${request.lastUserPrompt}` }));
}, 60_000);
afterAll(async () => {
  await serve?.stop();
});

interface Summary {
  checkpointId: string;
  namespace: string;
  stageId: string;
}
interface Message {
  role: string;
  content: unknown;
}

const get = async (path: string) => (await fetch(serve.api(path))).json() as Promise<Record<string, unknown>>;
const post = (path: string, body: unknown) =>
  fetch(serve.api(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The user and assistant texts of an OpenAI Chat Completions request's history, in order. */
function history(body: unknown): string[] {
  const messages = (body as { messages: Message[] }).messages;
  return messages
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
}

async function checkpoints(threadId: string): Promise<Summary[]> {
  return (await get(`/sessions/${threadId}/checkpoints?limit=200`)).checkpoints as Summary[];
}

/** User texts a checkpoint's conversation holds. */
async function userTexts(threadId: string, checkpointId: string): Promise<string[]> {
  const cp = (await get(`/sessions/${threadId}/checkpoints/${checkpointId}`)) as unknown as Checkpoint;
  return sessionStateOf(cp)
    .conversation.filter((m) => m.role === 'user')
    .map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''));
}

describe('fork a thread from a checkpoint (time travel)', { timeout: 90_000 }, () => {
  it('continues from the checkpoint: the model sees the history up to it, the old thread is untouched', async () => {
    const original = await serve.createThread('Original');
    await serve.prompt(original, 'first: my name is Ada');
    await serve.waitForStatus(original, 'done');
    await serve.prompt(original, 'second: I like tea');
    await serve.waitForStatus(original, 'done');

    const before = await checkpoints(original);
    // The newest checkpoint that knows the first prompt and not the second.
    let chosen: string | undefined;
    for (const c of before) {
      const texts = await userTexts(original, c.checkpointId);
      if (texts.includes('first: my name is Ada') && !texts.includes('second: I like tea')) {
        chosen = c.checkpointId;
        break;
      }
    }
    expect(chosen, 'a checkpoint after the first turn').toBeDefined();

    const forked = await post(`/sessions/${original}/fork`, { checkpointId: chosen });
    expect(forked.status).toBe(201);
    const reply = (await forked.json()) as {
      session: { id: string; engine: string; title: string; metadata: Record<string, unknown> };
      forkedFrom: { threadId: string; checkpointId: string };
    };
    expect(reply.forkedFrom).toEqual({ threadId: original, checkpointId: chosen });
    expect(reply.session).toMatchObject({ engine: 'builtin', title: 'Original (fork)' });
    expect(reply.session.metadata).toEqual({ forkedFrom: reply.forkedFrom });

    const fork = reply.session.id;
    const requestsBefore = serve.fake.modelRequests().length;
    await serve.prompt(fork, 'third: what is my name?');
    await serve.waitForStatus(fork, 'done');
    const request = serve.fake.modelRequests().at(requestsBefore);
    expect(history(request?.body)).toEqual([
      'user: first: my name is Ada',
      'assistant: echo: first: my name is Ada',
      'user: third: what is my name?',
    ]);

    // The old thread: the same checkpoints, and its next turn still has its own second prompt.
    expect((await checkpoints(original)).slice(-before.length)).toEqual(before);
    const oldRequests = serve.fake.modelRequests().length;
    await serve.prompt(original, 'fourth');
    await serve.waitForStatus(original, 'done');
    expect(history(serve.fake.modelRequests().at(oldRequests)?.body)).toContain('user: second: I like tea');
  });

  it('is in the OpenAPI document and refuses what it cannot fork with a 4xx JSON error', async () => {
    const doc = (await get('/openapi.json')) as { paths: Record<string, Record<string, unknown>> };
    expect(doc.paths['/api/harness/sessions/{id}/fork']?.post).toBeDefined();

    const thread = await serve.createThread();
    const missing = await post(`/sessions/${thread}/fork`, { checkpointId: '01JZZZZZZZZZZZZZZZZZZZZZZZ' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { field: string } }).error.field).toBe('body.checkpointId');

    const noThread = await post('/sessions/no-such-thread/fork', { checkpointId: 'x' });
    expect(noThread.status).toBe(404);

    const bad = await post(`/sessions/${thread}/fork`, { checkpoint: 'x' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
  });
});
