import { describe, expect, it } from 'vitest';
import {
  answers,
  chunk,
  endless,
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
const work = workspace('rt-progress-');

const noop = () => {};

/** Writes the pieces one after the other, `gapMs` apart (a frame split across network reads). */
const pieces =
  (parts: string[], gapMs = 30): Handler =>
  async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const p of parts) {
      res.write(p);
      await new Promise((r) => setTimeout(r, gapMs));
    }
    res.end();
  };

describe('the deadline of a model call', () => {
  it('a stream that keeps sending text is cut at modelTimeouts.totalMs', async () => {
    const text = chunk({ content: 'more ' });
    model.script(endless(() => text, { ms: 15_000, intervalMs: 100, head: ROLE }, noop));
    const r = await runTurn(model.url, work.dir, { modelTimeouts: { idleMs: 1_000, totalMs: 1_500 } });
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/timed out: the call took longer than 1500 ms \(modelTimeouts.totalMs\)/);
    expect(warnings(r.events).map((w) => w.code)).toContain('builtin.model_stream_error');
  });

  it('a rate-limit wait that would pass the deadline is not waited', async () => {
    let requests = 0;
    const limited: Handler = (_req, res) => {
      requests++;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '20' });
      res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit_error' } }));
    };
    model.script(limited);
    const r = await runTurn(model.url, work.dir, {
      modelTimeouts: { totalMs: 2_000 },
      rateLimitRetries: { maxDelayMs: 30_000 },
    });
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/slow down/);
    // Not waited: no second request after the 20 s the server asked for.
    expect(requests).toBe(1);
  });

  it('refuses a total limit that is not a positive integer', async () => {
    await expect(runTurn(model.url, work.dir, { modelTimeouts: { totalMs: 0 } })).rejects.toThrow(/totalMs/);
  });
});

describe('what counts as progress', () => {
  it('empty chunks (`choices: []`, empty deltas) do not hold the idle limit off', async () => {
    let n = 0;
    const empty = () =>
      n++ % 2 === 0
        ? `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [] })}\n\n`
        : chunk({ role: 'assistant', content: '' });
    model.script(
      endless(empty, { ms: 15_000, intervalMs: 100, head: ROLE + chunk({ content: 'partial' }) }, noop),
    );
    const r = await runTurn(model.url, work.dir, { modelTimeouts: { firstByteMs: 2_000, idleMs: 600 } });
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/timed out: no stream event for 600 ms/);
  });

  it('a usage chunk and a finish still end the call normally', async () => {
    const usage = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })}\n\n`;
    model.script(sse([ROLE, chunk({ content: 'fine' }), chunk({}, 'stop'), usage, 'data: [DONE]\n\n']));
    const r = await runTurn(model.url, work.dir, { modelTimeouts: { idleMs: 500 } });
    expect(r.outcome.outcome).toBe('completed');
    expect(answers(r)).toEqual(['fine']);
  });
});

describe('empty data lines', () => {
  it('an SSE event `data:` with nothing after it is skipped, the text after it kept', async () => {
    model.script(
      sse([
        'event: foo\n\n',
        ': comment\n\n',
        '\n\n',
        'id: 5\n\n',
        'data:\n\n',
        ROLE,
        chunk({ content: 'after-empty' }),
        ...STOP,
      ]),
    );
    const r = await runTurn(model.url, work.dir);
    expect(r.outcome.outcome).toBe('completed');
    expect(answers(r)).toEqual(['after-empty']);
  });

  it('also `data: `, a bare `data`, CRLF line ends, and an empty line split across network reads', async () => {
    model.script(
      pieces([
        ROLE,
        'data: \r\n\r\n',
        'data\n\n',
        'da',
        'ta',
        ':',
        ' \n',
        '\n',
        chunk({ content: 'one ' }),
        'data: \n',
        chunk({ content: 'two' }),
        ...STOP,
      ]),
    );
    const r = await runTurn(model.url, work.dir);
    expect(r.outcome.outcome).toBe('completed');
    expect(answers(r)).toEqual(['one two']);
  });
});

describe('an idle timeout mid-stream', () => {
  it('is said as a harness.warning, as a first-byte timeout is', async () => {
    const stall: Handler = async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(ROLE + chunk({ content: 'partial answer before stall' }));
      await new Promise((r) => setTimeout(r, 3_000));
      res.end();
    };
    model.script(stall);
    const r = await runTurn(model.url, work.dir, { modelTimeouts: { idleMs: 300 } });
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/no stream event for 300 ms/);
    const w = warnings(r.events).filter((x) => x.code === 'builtin.model_stream_error');
    expect(w.map((x) => x.message)).toEqual([
      'the model stream reported an error: the model server timed out: no stream event for 300 ms',
    ]);

    model.script(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 1_500));
      res.destroy();
    });
    const first = await runTurn(model.url, work.dir, { modelTimeouts: { firstByteMs: 300 } });
    expect(warnings(first.events).filter((x) => x.code === 'builtin.model_stream_error')).toHaveLength(1);
  });
});
