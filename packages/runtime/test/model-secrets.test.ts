import { describe, expect, it } from 'vitest';
import {
  chunk,
  type Handler,
  hostileServer,
  ROLE,
  runTurn,
  STOP,
  sse,
  toolCallResponse,
  warnings,
  workspace,
} from './hostile-model';

const KEY = 'sk-test-secret-123';
const model = hostileServer();
const work = workspace('rt-secrets-');

/** An error body that echoes the request's headers (Authorization included), as a careless proxy does. */
const echo =
  (status: number): Handler =>
  (req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: {
          message: `bad request; you sent headers ${JSON.stringify(req.headers)}`,
          type: 'invalid_request_error',
          echoed: req.headers,
        },
      }),
    );
  };

/** Every place a turn's data is kept: native frames, events, ledger rows, the run's error, the checkpoint. */
function leaks(r: Awaited<ReturnType<typeof runTurn>>): string[] {
  const places = {
    frames: r.frames,
    events: r.events,
    audit: r.audit,
    error: r.outcome.error ?? '',
    checkpoint: r.checkpoint ?? null,
  };
  return Object.entries(places)
    .filter(([, v]) => {
      const s = JSON.stringify(v);
      return s.includes(KEY) || /Bearer sk-/.test(s);
    })
    .map(([k]) => k);
}

describe('a model server that echoes the API key', () => {
  it.each([
    ['HTTP 400', echo(400)],
    ['HTTP 401', echo(401)],
    ['HTTP 500', echo(500)],
    [
      'an SSE error event',
      sse([
        `data: ${JSON.stringify({ error: { message: `upstream rejected Authorization: Bearer ${KEY}`, type: 'auth', code: 401 } })}\n\n`,
      ]),
    ],
    ['a chunk that is not JSON', sse([ROLE, `data: {"auth":"Bearer ${KEY}" broken\n\n`, ...STOP])],
  ])('%s: the key is in no frame, event, ledger row, run error or checkpoint', async (_name, handler) => {
    model.script(handler);
    const r = await runTurn(model.url, work.dir, { apiKey: KEY });
    expect(r.outcome.outcome).toBe('failed');
    expect(leaks(r)).toEqual([]);
    // What failed is still said, with the secret replaced.
    expect(r.outcome.error).toMatch(/REDACTED/);
    const row = r.audit.find((a) => a.call_class === 'model');
    expect(row?.status).toBe('error');
    expect(JSON.stringify(row?.payload)).toMatch(/REDACTED/);
    expect(warnings(r.events).map((w) => w.code)).toContain('builtin.model_stream_error');
  });

  it('in the planning call: not in the run error or the ledger row', async () => {
    model.script(echo(400));
    const r = await runTurn(model.url, work.dir, { apiKey: KEY, plan: true });
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/the planning call failed: bad request/);
    expect(leaks(r)).toEqual([]);
  });

  it('in the answer, the reasoning and a tool call’s input: replaced before anything keeps them', async () => {
    model.script(
      sse([
        ROLE,
        chunk({ reasoning_content: `thinking about ${KEY}` }),
        chunk({ content: `your key is ${KEY}, keep it` }),
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call_1',
              type: 'function',
              function: { name: 'nope', arguments: JSON.stringify({ path: KEY }) },
            },
          ],
        }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ]),
      sse([ROLE, chunk({ content: `done ${KEY}` }), ...STOP]),
    );
    const r = await runTurn(model.url, work.dir, { apiKey: KEY });
    expect(r.outcome.outcome).toBe('completed');
    expect(leaks(r)).toEqual([]);
    const answers = r.events.filter((e) => e.kind === 'message.completed').map((e) => e.payload.text);
    expect(answers).toContain('your key is [REDACTED], keep it');
  });

  it('the key from the provider’s environment variable is redacted too', async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = KEY;
    try {
      model.script(echo(400));
      const r = await runTurn(model.url, work.dir, { apiKey: undefined });
      expect(r.outcome.outcome).toBe('failed');
      expect(model.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(leaks(r)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });
});

// A probe's model read a copy of the config file: the server's bearer token (no engine key, no variable of
// this process) was redacted in events but kept in the checkpoint, which a thread-scoped token can read.
describe('what the host knows to be secret (services.secrets)', () => {
  it('a tool result holding one is kept without it in the checkpoint, as in the events', async () => {
    const TOKEN = 'tok-server-admin-0123456789';
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    await writeFile(join(work.dir, 'cfg.json'), JSON.stringify({ tokens: [{ token: TOKEN }] }));
    model.script(
      toolCallResponse('read_file', { path: 'cfg.json' }),
      sse([ROLE, chunk({ content: 'read it' }), ...STOP]),
    );
    const r = await runTurn(model.url, work.dir, { apiKey: KEY, workspaceTools: {} }, 'hi', {
      secrets: [TOKEN],
    });
    expect(r.outcome.outcome).toBe('completed');
    expect(JSON.stringify(r.checkpoint)).toContain('REDACTED');
    expect(JSON.stringify(r.checkpoint)).not.toContain(TOKEN);
  });
});
