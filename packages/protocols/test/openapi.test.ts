import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from './support/stack';

type Operation = {
  summary?: string;
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, unknown> }>;
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
