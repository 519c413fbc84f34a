import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeModelServer,
  longAnswer,
  providerError,
  slowStream,
  startFakeModelServer,
  toolThenAnswer,
  writeFileTool,
} from '../src/index';

type Obj = Record<string, unknown>;

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Reads an SSE body into its data payloads (JSON-parsed, `[DONE]` kept as a string). */
async function sseData(res: Response): Promise<unknown[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .map((block) =>
      block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n'),
    )
    .filter((d) => d.length > 0)
    .map((d) => (d === '[DONE]' ? d : (JSON.parse(d) as unknown)));
}

describe('fake model server', () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer({
      scenario: toolThenAnswer({ tool: writeFileTool('/tmp/x/hello.txt', 'hi'), answer: 'All done.' }),
    });
  });
  afterAll(() => server.close());

  it('speaks Anthropic Messages with ?beta=true: thinking + signature, text, tool_use, then the answer', async () => {
    const tools = [{ name: 'Write', input_schema: {} }];
    const first = await sseData(
      await post(`${server.url}/v1/messages?beta=true`, {
        model: 'claude-sonnet-4-6',
        stream: true,
        tools,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'write hello' }] }],
      }),
    );
    const types = first.map((e) => (e as Obj).type);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    const deltas = first.map((e) => ((e as Obj).delta as Obj | undefined)?.type);
    expect(deltas).toContain('thinking_delta');
    expect(deltas).toContain('signature_delta');
    expect(deltas).toContain('input_json_delta');
    const json = first
      .filter((e) => ((e as Obj).delta as Obj | undefined)?.type === 'input_json_delta')
      .map((e) => ((e as Obj).delta as Obj).partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual({ file_path: '/tmp/x/hello.txt', content: 'hi' });
    const toolUse = first.find(
      (e) => ((e as Obj).content_block as Obj | undefined)?.type === 'tool_use',
    ) as Obj;
    const toolId = (toolUse.content_block as Obj).id;

    const second = await sseData(
      await post(`${server.url}/v1/messages?beta=true`, {
        model: 'claude-sonnet-4-6',
        stream: true,
        tools,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'write hello' }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: toolId, name: 'Write', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: 'ok' }] },
        ],
      }),
    );
    const text = second
      .filter((e) => ((e as Obj).delta as Obj | undefined)?.type === 'text_delta')
      .map((e) => ((e as Obj).delta as Obj).text)
      .join('');
    expect(text).toBe('All done.');
    const recorded = server.requests.at(-1)!;
    expect(recorded.api).toBe('anthropic-messages');
    expect(recorded.query.beta).toBe('true');
    expect(recorded.toolResultsSinceUserPrompt).toBe(1);
  });

  it('speaks the OpenAI Responses API and ignores developer messages appended after a tool output', async () => {
    const tools = [{ type: 'function', name: 'exec_command' }];
    const first = await sseData(
      await post(`${server.url}/v1/responses`, {
        model: 'gpt-5.5',
        stream: true,
        tools,
        input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'write hello' }] }],
      }),
    );
    const types = first.map((e) => (e as Obj).type);
    expect(types).toContain('response.output_item.added');
    expect(types.filter((t) => t === 'response.output_item.done')).toHaveLength(3);
    const completed = first.at(-1) as Obj;
    expect(completed.type).toBe('response.completed');
    expect(((completed.response as Obj).usage as Obj).total_tokens).toBeGreaterThan(0);
    const call = first.find(
      (e) =>
        (e as Obj).type === 'response.output_item.done' && ((e as Obj).item as Obj).type === 'function_call',
    ) as Obj;
    expect((call.item as Obj).name).toBe('exec_command');

    const second = await sseData(
      await post(`${server.url}/v1/responses`, {
        model: 'gpt-5.5',
        stream: true,
        tools,
        input: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'write hello' }] },
          { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'ok' },
          {
            type: 'message',
            role: 'developer',
            content: [{ type: 'input_text', text: 'Approved prefix saved' }],
          },
        ],
      }),
    );
    const text = second
      .filter((e) => (e as Obj).type === 'response.output_text.delta')
      .map((e) => (e as Obj).delta)
      .join('');
    expect(text).toBe('All done.');
  });

  it('sends a freeform custom tool call (Codex apply_patch) with a path relative to the cwd', async () => {
    const data = await sseData(
      await post(`${server.url}/v1/responses`, {
        model: 'gpt-5.5',
        stream: true,
        tools: [
          { type: 'custom', name: 'apply_patch' },
          { type: 'function', name: 'exec_command' },
        ],
        input: [
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: '<environment_context><cwd>/tmp/x</cwd></environment_context>' },
            ],
          },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'write hello' }] },
        ],
      }),
    );
    const done = data.find(
      (e) =>
        (e as Obj).type === 'response.output_item.done' &&
        ((e as Obj).item as Obj).type === 'custom_tool_call',
    ) as Obj;
    expect((done.item as Obj).name).toBe('apply_patch');
    expect((done.item as Obj).input).toBe('*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n');
  });

  it('speaks Chat Completions with reasoning_content, tool_calls and include_usage', async () => {
    const data = await sseData(
      await post(`${server.url}/v1/chat/completions`, {
        model: 'fake-model',
        stream: true,
        stream_options: { include_usage: true },
        tools: [{ type: 'function', function: { name: 'write' } }],
        messages: [{ role: 'user', content: 'write hello' }],
      }),
    );
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1) as Obj[];
    const deltas = chunks.flatMap((c) => (c.choices as Obj[]).map((ch) => ch.delta as Obj));
    expect(deltas.some((d) => typeof d.reasoning_content === 'string')).toBe(true);
    const args = deltas
      .flatMap((d) => (d.tool_calls as Obj[] | undefined) ?? [])
      .map((t) => (t.function as Obj).arguments)
      .join('');
    expect(JSON.parse(args)).toEqual({ filePath: '/tmp/x/hello.txt', content: 'hi' });
    expect(chunks.at(-1)?.usage).toBeDefined();
  });

  it('speaks Gemini streamGenerateContent with thought and functionCall parts', async () => {
    const data = (await sseData(
      await post(`${server.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
        contents: [{ role: 'user', parts: [{ text: 'write hello' }] }],
        tools: [{ functionDeclarations: [{ name: 'write_file' }] }],
      }),
    )) as Obj[];
    const parts = data.flatMap((d) => (((d.candidates as Obj[])[0]!.content as Obj).parts as Obj[]) ?? []);
    expect(parts.some((p) => p.thought === true)).toBe(true);
    expect(parts.find((p) => p.functionCall)?.functionCall).toEqual({
      name: 'write_file',
      args: { file_path: '/tmp/x/hello.txt', content: 'hi' },
    });
    expect(server.requests.at(-1)?.model).toBe('gemini-2.5-flash');
  });

  it('answers a provider error, a long answer and a slow stream', async () => {
    server.setScenario(providerError('boom'));
    const res = await post(`${server.url}/v1/messages`, { model: 'm', stream: true, messages: [] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Obj).error).toMatchObject({ message: 'boom' });

    server.setScenario(longAnswer(500));
    const long = await sseData(
      await post(`${server.url}/v1/chat/completions`, { stream: true, messages: [] }),
    );
    const text = (long.slice(0, -1) as Obj[])
      .flatMap((c) => (c.choices as Obj[]).map((ch) => (ch.delta as Obj).content ?? ''))
      .join('');
    expect(text.split(' ')).toHaveLength(500);

    server.setScenario(slowStream({ chunks: 50, delayMs: 20 }));
    const controller = new AbortController();
    const slow = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      body: JSON.stringify({ stream: true, input: [] }),
      signal: controller.signal,
    });
    const reader = slow.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
  });

  it('records every request, redacts keys, and 404s unknown routes', async () => {
    const res = await fetch(`${server.url}/v1/unknown`, { headers: { authorization: 'Bearer sk-secret' } });
    expect(res.status).toBe(404);
    const recorded = server.requests.at(-1)!;
    expect(recorded.headers.authorization).toBe('[redacted]');
    expect(JSON.stringify(server.requests)).not.toContain('sk-secret');
  });
});
