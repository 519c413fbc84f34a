import { describe, expect, it } from 'vitest';
import { guardedFetch } from '../src/model-fetch';
import { BLANK_TOOL_NAME, type Repaired, SseRepairs } from '../src/sse-repair';
import {
  answers,
  chunk,
  counter,
  type Handler,
  hostileServer,
  ROLE,
  runTurn,
  STOP,
  sse,
  warnings,
  workspace,
} from './hostile-model';

const model = hostileServer();
const work = workspace('rt-repairs-');

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the idle limit measures the server, not the reader', () => {
  it('a reader slower than the limit still reads a stream the server sent whole', async () => {
    // The server sends its whole answer in three writes, then stays connected with nothing more to say.
    const parts = [ROLE, chunk({ content: 'one ' }), chunk({ content: 'two' }), ...STOP];
    const quick: Handler = async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const p of parts) {
        res.write(p);
        await pause(20);
      }
      res.end();
    };
    model.script(quick);
    const fetch = guardedFetch(globalThis.fetch, { timeouts: { idleMs: 150 } });
    const response = await fetch(`${model.url}/chat/completions`, { method: 'POST', body: '{}' });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const decoder = new TextDecoder();
    // The reader is busy for far longer than the idle limit between its reads (the server is long done).
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += decoder.decode(r.value, { stream: true });
      await pause(400);
    }
    expect(text).toContain('[DONE]');
  });

  it('a server silent while the reader waits still times out', async () => {
    model.script(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(ROLE + chunk({ content: 'partial' }));
      await pause(2_000);
      res.end();
    });
    const r = await runTurn(model.url, work.dir, { modelTimeouts: { idleMs: 300 } });
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/no stream event for 300 ms/);
  });
});

describe('a tool call with an empty name', () => {
  it('is answered like any unknown name: started, failed, and its result sent back', async () => {
    const { ran, tool } = counter();
    const call = (i: number, name: string) =>
      chunk({
        tool_calls: [{ index: i, id: `call_${i}`, type: 'function', function: { name, arguments: '{}' } }],
      });
    model.script(sse([ROLE, call(0, ''), call(1, 'count'), chunk({}, 'tool_calls'), 'data: [DONE]\n\n']));
    const before = model.requests.length;
    const r = await runTurn(model.url, work.dir, { tools: [tool] });
    expect(r.outcome.outcome).toBe('completed');
    expect(ran.n).toBe(1);
    const started = r.events.filter((e) => e.kind === 'tool.started').map((e) => e.payload.name);
    // Events and ledger rows need a name: the empty one shows as BLANK_TOOL_NAME.
    expect(started).toEqual([BLANK_TOOL_NAME, 'count']);
    expect(warnings(r.events)).toEqual([]);
    const done = r.events.filter((e) => e.kind === 'tool.completed').map((e) => e.payload);
    expect(done.map((p) => p.status)).toEqual(['failed', 'completed']);
    expect(done[0]?.error).toMatch(/no tool named ""/);
    // The model reads an answer for both calls, the empty name as it sent it.
    const next = model.requests[before + 1]?.body.messages as {
      role: string;
      content: string;
      tool_calls?: { id: string; function: { name: string } }[];
    }[];
    const asked = next.find((m) => m.role === 'assistant')?.tool_calls ?? [];
    expect(asked.map((c) => c.function.name)).toEqual(['', 'count']);
    const results = next.filter((m) => m.role === 'tool');
    expect(results).toHaveLength(2);
    expect(results[0]?.content).toMatch(/no tool named ""/);
  });

  it('a blank name on a call already begun is no new call', async () => {
    const start = chunk({
      tool_calls: [
        { index: 0, id: 'call_0', type: 'function', function: { name: 'nothing', arguments: '' } },
      ],
    });
    const more = chunk({ tool_calls: [{ index: 0, function: { name: '', arguments: '{}' } }] });
    model.script(sse([ROLE, start, more, chunk({}, 'tool_calls'), 'data: [DONE]\n\n']));
    const r = await runTurn(model.url, work.dir);
    const started = r.events.filter((e) => e.kind === 'tool.started').map((e) => e.payload.name);
    expect(started).toEqual(['nothing']);
  });
});

describe('token counts that are no count', () => {
  const usage = (u: string) =>
    `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":${u}}\n\n`;

  it.each([
    [
      'negative',
      '{"prompt_tokens":-5,"completion_tokens":2,"total_tokens":-3}',
      ['usage.prompt_tokens', 'usage.total_tokens'],
    ],
    ['too large', '{"prompt_tokens":1e400,"completion_tokens":2,"total_tokens":5}', ['usage.prompt_tokens']],
    [
      'fractional',
      '{"prompt_tokens":3,"completion_tokens":2.5,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":-1}}',
      ['usage.completion_tokens', 'usage.prompt_tokens_details.cached_tokens'],
    ],
  ])('%s: dropped with one warning, the turn goes on', async (_what, counts, fields) => {
    model.script(
      sse([
        ROLE,
        chunk({ content: 'fine' }),
        chunk({}, 'stop'),
        usage(counts),
        usage(counts),
        'data: [DONE]\n\n',
      ]),
    );
    const r = await runTurn(model.url, work.dir);
    expect(r.outcome.outcome).toBe('completed');
    expect(answers(r)).toEqual(['fine']);
    const w = warnings(r.events);
    expect(w.map((x) => x.code)).toEqual(['model_usage_invalid']);
    expect(w[0]?.message).toContain(fields.join(', '));
    // The counts that were counts stay.
    const row = r.audit.find((a) => a.call_class === 'model');
    expect(JSON.stringify(row)).toMatch(/"outputTokens":2|"inputTokens":3/);
  });
});

describe('SseRepairs', () => {
  const run = (pieces: string[]) => {
    const seen: Repaired[] = [];
    const repairs = new SseRepairs((r) => seen.push(r));
    const out = pieces.map((p) => Buffer.from(repairs.clean(Buffer.from(p))).toString('utf8')).join('');
    return { out: out + Buffer.from(repairs.flush() ?? new Uint8Array(0)).toString('utf8'), seen };
  };

  it('passes lines it has nothing to repair byte for byte, split anywhere', () => {
    const text = `${chunk({ content: 'a message about "usage": -1' })}: keep\r\n\r\n${chunk({ content: 'x' })}`;
    for (let cut = 0; cut <= text.length; cut += 7) {
      const r = run([text.slice(0, cut), text.slice(cut)]);
      expect(r.out).toBe(text);
      expect(r.seen).toEqual([]);
    }
  });

  it('repairs a usage line that arrives in pieces, and keeps what is held at the end', () => {
    const line = 'data: {"choices":[],"usage":{"prompt_tokens":-1,"completion_tokens":4}}\n\n';
    const r = run([
      line.slice(0, 20),
      line.slice(20, 50),
      line.slice(50),
      'data: {"usage":{"total_tokens":1.5}}',
    ]);
    expect(r.out).toBe('data: {"choices":[],"usage":{"completion_tokens":4}}\n\ndata: {"usage":{}}');
    expect(r.seen).toEqual([{ usage: ['usage.prompt_tokens'] }, { usage: ['usage.total_tokens'] }]);
  });

  it('leaves a field named usage deep inside a tool input alone', () => {
    const line = `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ functionCall: { args: { usage: -1 } } }] } }] })}\n\n`;
    expect(run([line]).out).toBe(line);
  });
});
