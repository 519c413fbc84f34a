import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REDACTED } from '@agentlane/engine-kit';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../src/index';
import { chunk, hostileServer, ROLE, runTurn, STOP, sse, workspace } from './hostile-model';

const KEY = 'sk-test-secret-0123456789';
const model = hostileServer();
const work = workspace('rt-stream-secrets-');

/** Every place a turn's data is kept, by name, that holds the key or its first 12 characters. */
function leaks(r: Awaited<ReturnType<typeof runTurn>>, what = KEY.slice(0, 12)): string[] {
  const places = {
    events: r.events,
    audit: r.audit,
    error: r.outcome.error ?? '',
    checkpoint: r.checkpoint ?? null,
  };
  return Object.entries(places)
    .filter(([, v]) => JSON.stringify(v).includes(what))
    .map(([k]) => k);
}

describe('a secret the model streams in pieces', () => {
  it('a key split across two text chunks is replaced whole in deltas, the answer, the ledger and the checkpoint', async () => {
    model.script(
      sse([
        ROLE,
        chunk({ content: `your key is ${KEY.slice(0, 14)}` }),
        chunk({ content: `${KEY.slice(14)}, ok` }),
        ...STOP,
      ]),
    );
    const r = await runTurn(model.url, work.dir, { apiKey: KEY, coalesceDeltas: false });
    expect(r.outcome.outcome).toBe('completed');
    expect(leaks(r)).toEqual([]);
    const deltas = r.events.filter((e) => e.kind === 'message.delta').map((e) => e.payload.delta);
    expect(deltas.join('')).toBe('your key is [REDACTED], ok');
    const answers = r.events.filter((e) => e.kind === 'message.completed').map((e) => e.payload.text);
    expect(answers).toEqual(['your key is [REDACTED], ok']);
  });

  it('a key split across reasoning chunks and tool-input chunks is replaced whole', async () => {
    const args = JSON.stringify({ path: KEY });
    const cut = args.indexOf(KEY) + 14;
    model.script(
      sse([
        ROLE,
        chunk({ reasoning_content: `thinking ${KEY.slice(0, 14)}` }),
        chunk({ reasoning_content: `${KEY.slice(14)} more` }),
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call_1',
              type: 'function',
              function: { name: 'nope', arguments: args.slice(0, cut) },
            },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(cut) } }] }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ]),
      sse([ROLE, chunk({ content: 'done' }), ...STOP]),
    );
    const r = await runTurn(model.url, work.dir, { apiKey: KEY, coalesceDeltas: false });
    expect(r.outcome.outcome).toBe('completed');
    expect(leaks(r)).toEqual([]);
    expect(JSON.stringify(r.frames)).not.toContain(KEY.slice(0, 12));
  });

  it('a start of the key that never completes is not held back', async () => {
    model.script(
      sse([ROLE, chunk({ content: `see ${KEY.slice(0, 10)}` }), chunk({ content: 'lint' }), ...STOP]),
    );
    const r = await runTurn(model.url, work.dir, { apiKey: KEY });
    const answers = r.events.filter((e) => e.kind === 'message.completed').map((e) => e.payload.text);
    expect(answers).toEqual([`see ${KEY.slice(0, 10)}lint`]);
  });
});

describe('a tool result that prints a secret', () => {
  it('is redacted in the checkpoint as in the tool.completed event', async () => {
    // The command's text does not hold the key; its output does.
    const command = `printf '%s%s\\n' '${KEY.slice(0, 10)}' '${KEY.slice(10)}'`;
    model.script(
      sse([
        ROLE,
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call_1',
              type: 'function',
              function: { name: 'run_command', arguments: JSON.stringify({ command }) },
            },
          ],
        }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ]),
      sse([ROLE, chunk({ content: 'done' }), ...STOP]),
    );
    const r = await runTurn(model.url, work.dir, { apiKey: KEY, workspaceTools: { approveCommands: false } });
    expect(r.outcome.outcome).toBe('completed');
    expect(JSON.stringify(r.checkpoint)).toContain('[REDACTED]');
    expect(JSON.stringify(r.checkpoint)).not.toContain(KEY);
  });
});

describe('a tool result past its bound that holds a secret', () => {
  it('is redacted in the file it is spilled to (an artifact, stored as it is)', async () => {
    const report = defineTool<unknown>({
      name: 'report',
      description: 'a large report',
      inputSchema: Type.Object({}),
      execute: async () => ({ report: `${'x'.repeat(5_000)} ${KEY} ${'y'.repeat(5_000)}` }),
    });
    const call = { index: 0, id: 'call_r', type: 'function', function: { name: 'report', arguments: '{}' } };
    model.script(
      sse([ROLE, chunk({ tool_calls: [call] }), chunk({}, 'tool_calls'), 'data: [DONE]\n\n']),
      sse([ROLE, chunk({ content: 'done' }), ...STOP]),
    );
    const r = await runTurn(model.url, work.dir, {
      apiKey: KEY,
      toolResultBytes: 1_000,
      plugins: [{ name: 'reports', tools: () => [report] }],
    });
    expect(r.outcome.outcome).toBe('completed');
    const files = r.frames.flatMap((f) => {
      const a = f as { rt?: string; file?: { path: string } };
      return a.rt === 'artifact' && a.file ? [a.file.path] : [];
    });
    expect(files).toHaveLength(1);
    const spilled = readFileSync(files[0] as string, 'utf8');
    expect(spilled).toContain(`x ${'[REDACTED]'} y`);
    expect(spilled).not.toContain(KEY);
  });
});

describe("a command's output past its bound that holds a secret", () => {
  it('is redacted in the file it is spilled to, a key split across the bound whole', async () => {
    // 990 bytes shown, the key's first 10 characters ending what is shown; later, the key whole in the file.
    // The command's text holds the key in two parts (the model's tool input is redacted too).
    const key = `'${KEY.slice(0, 10)}' '${KEY.slice(10)}'`;
    const command = `head -c 990 /dev/zero | tr '\\0' x; printf '%s%s' ${key}; head -c 3000 /dev/zero | tr '\\0' y; printf ' %s%s z\\n' ${key}`;
    const call = {
      index: 0,
      id: 'call_big',
      type: 'function',
      function: { name: 'run_command', arguments: JSON.stringify({ command }) },
    };
    model.script(
      sse([ROLE, chunk({ tool_calls: [call] }), chunk({}, 'tool_calls'), 'data: [DONE]\n\n']),
      sse([ROLE, chunk({ content: 'done' }), ...STOP]),
    );
    const r = await runTurn(model.url, work.dir, {
      apiKey: KEY,
      workspaceTools: {
        approveCommands: false,
        maxCommandOutputBytes: 1_000,
        outputDir: join(work.dir, 'out'),
      },
    });
    expect(r.outcome.outcome).toBe('completed');
    const files = r.frames.flatMap((f) => {
      const a = f as { rt?: string; file?: { path: string; bytes: number; sha256: string } };
      return a.rt === 'artifact' && a.file ? [a.file] : [];
    });
    expect(files).toHaveLength(1);
    const file = files[0] as { path: string; bytes: number; sha256: string };
    const spilled = readFileSync(file.path);
    const text = spilled.toString('utf8');
    // The key's rest past the bound, and the key whole further on, are not in the file.
    expect(text).not.toContain(KEY.slice(10));
    expect(text).not.toContain(KEY.slice(0, 12));
    expect(text.startsWith(`${REDACTED}yyy`)).toBe(true);
    expect(text.endsWith(`y ${REDACTED} z\n`)).toBe(true);
    // What the artifact says of the file is what it holds.
    expect(spilled.length).toBe(file.bytes);
    expect(createHash('sha256').update(spilled).digest('hex')).toBe(file.sha256);
    // Nor in what was shown: the key's start the terminal held went on into the file.
    const shown = r.events.filter((e) => e.kind === 'terminal.output').map((e) => e.payload.chunk);
    expect(shown.join('')).not.toContain(KEY.slice(0, 8));
    expect(shown.join('')).toContain('x'.repeat(990));
  });
});

describe('a model error of megabytes', () => {
  it('is cut to MAX_PREVIEW_CHARS in the run error and the ledger row, saying how much more there was', async () => {
    const body = `bad request ${'x'.repeat(3_000_000)}`;
    model.script((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: body, type: 'invalid_request_error' } }));
    });
    const r = await runTurn(model.url, work.dir, { apiKey: KEY });
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error?.length).toBeLessThan(4000);
    expect(r.outcome.error).toMatch(/… \(\d+ more characters\)$/);
    const row = r.audit.find((a) => a.call_class === 'model');
    expect(JSON.stringify(row?.payload).length).toBeLessThan(8000);
  });
});
