import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from './support/stack';

type Operation = {
  summary?: string;
  requestBody?: unknown;
  responses: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
};
let stack: Stack;
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  stack = await startStack([]);
  paths = ((await (await fetch(`${stack.api}/openapi.json`)).json()) as { paths: typeof paths }).paths;
});
afterAll(async () => {
  await stack?.stop();
});

describe('the OpenAPI document', () => {
  it('lists the protocol routes, each stream with its text/event-stream 200', () => {
    const op = (path: string, method: string) => paths[`/api/harness${path}`]?.[method] as Operation;
    for (const [path, method] of [
      ['/protocols/ag-ui', 'post'],
      ['/protocols/ai-sdk/chat', 'post'],
      ['/protocols/ai-sdk/chat/{id}/stream', 'get'],
      ['/threads/{id}/events', 'get'],
      ['/sessions/{id}/execute', 'post'],
    ] as const)
      expect(Object.keys(op(path, method)?.responses['200']?.content ?? {}), path).toEqual([
        'text/event-stream',
      ]);
    expect(op('/protocols/ai-sdk/chat/{id}/messages', 'get')?.summary).toMatch(/messages/);
  });

  it('documents the chat routes as they answer: the messages 200 as JSON, the resume 204 without a body', async () => {
    const op = (path: string) => paths[`/api/harness/protocols/ai-sdk/chat/{id}/${path}`]?.get as Operation;
    const ok = op('messages').responses['200'];
    expect(Object.keys(ok?.content ?? {})).toEqual(['application/json']);
    expect(ok?.content?.['application/json']?.schema).toMatchObject({
      type: 'object',
      required: ['messages'],
      properties: { messages: { type: 'array', items: { required: ['id', 'role', 'parts'] } } },
    });
    const none = op('stream').responses['204'];
    expect(none?.description).toMatch(/^No run to resume/);
    expect(none).not.toHaveProperty('content');
    // A cursor beyond the head is refused with the head next to the error (kept by the 409's own schema).
    expect(op('stream').responses['409']?.content?.['application/json']?.schema).toMatchObject({
      properties: { headDeliverySeq: {} },
    });

    // The schema also serializes the answer: a message keeps every property it has.
    const res = await fetch(`${stack.api}/protocols/ai-sdk/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'chat-doc',
        engine: 'replay',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Create hello.txt' }] }],
      }),
    });
    await res.text();
    const got = await fetch(`${stack.api}/protocols/ai-sdk/chat/chat-doc/messages`);
    expect(got.status).toBe(200);
    const { messages } = (await got.json()) as { messages: { metadata?: unknown; parts: object[] }[] };
    expect(messages[1]?.metadata).toMatchObject({
      agentlane: { threadId: 'chat-doc', stopReason: 'end_turn' },
    });
    expect(messages[1]?.parts).toContainEqual(
      expect.objectContaining({ type: 'dynamic-tool', state: 'output-available', input: expect.any(Object) }),
    );
    const resumed = await fetch(`${stack.api}/protocols/ai-sdk/chat/chat-doc/stream`);
    expect(resumed.status).toBe(204);
    expect(await resumed.text()).toBe('');
  });

  it('lists on every route the errors any request can get, and the body errors on routes that take one', () => {
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const codes = Object.keys(op.responses);
        const open = path.endsWith('/health');
        for (const code of ['400', '503', ...(open ? [] : ['401', '403', '429'])])
          expect(codes, `${method} ${path}`).toContain(code);
        if (op.requestBody !== undefined)
          expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(['413', '415']));
      }
    }
    expect(Object.keys(paths['/api/harness/sessions/{id}/sync']?.post?.responses ?? {})).toContain('409');
  });
});
