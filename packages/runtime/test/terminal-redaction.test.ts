import { MIN_HELD, REDACTED, SecretRedactor } from '@agentlane/engine-kit';
import fc from 'fast-check';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../src/index';
import { type TerminalChunk, TerminalRedaction } from '../src/terminal-redaction';
import { chunk, hostileServer, ROLE, runTurn, STOP, sse, workspace } from './hostile-model';

const KEY = 'sk-test-terminal-secret-0123456789';
const redactor = new SecretRedactor([KEY]);

const out = (stream: 'stdout' | 'stderr', text: string): TerminalChunk => ({
  terminalId: 'term-1',
  stream,
  chunk: text,
  command: 'cat .env',
});
const exit: TerminalChunk = { ...out('stdout', ''), exit: { code: 0 } };

/** The chunks emitted for these, in order, as [stream, text, exited]. */
function emitted(chunks: TerminalChunk[], r = redactor): [string, string, boolean][] {
  const t = new TerminalRedaction(r);
  return [...chunks.flatMap((c) => t.chunk(c)), ...t.rest()].map((c) => [
    c.stream,
    c.chunk,
    c.exit !== undefined,
  ]);
}

/** A text cut at the given points (taken modulo its length + 1). */
function cut(text: string, points: number[]): string[] {
  const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  return [...at, text.length].map((p, i) => text.slice(i === 0 ? 0 : (at[i - 1] as number), p));
}

describe('TerminalRedaction', () => {
  it('replaces a key a command printed in two chunks whole; the tail goes out with the next chunk', () => {
    const chunks = emitted([
      out('stdout', `KEY=${KEY.slice(0, 12)}`),
      out('stdout', `${KEY.slice(12)}\n`),
      exit,
    ]);
    expect(chunks).toEqual([
      ['stdout', 'KEY=', false],
      ['stdout', `${REDACTED}\n`, false],
      ['stdout', '', true],
    ]);
  });

  it('keeps stdout and stderr apart: a key split by the other stream in between is still caught', () => {
    const chunks = emitted([
      out('stdout', `a ${KEY.slice(0, 10)}`),
      out('stderr', 'warning: x\n'),
      out('stdout', `${KEY.slice(10)} b`),
    ]);
    expect(chunks).toEqual([
      ['stdout', 'a ', false],
      ['stderr', 'warning: x\n', false],
      ['stdout', `${REDACTED} b`, false],
    ]);
  });

  it('at the exit, the held tails go out: the other stream first, then this one with the exit', () => {
    const chunks = emitted([
      out('stderr', `e ${KEY.slice(0, 8)}`),
      out('stdout', `o ${KEY.slice(0, 9)}`),
      { ...out('stdout', ' end'), exit: { code: 1 } },
      out('stdout', 'another run'),
    ]);
    expect(chunks).toEqual([
      ['stderr', 'e ', false],
      ['stdout', 'o ', false],
      ['stderr', KEY.slice(0, 8), false],
      ['stdout', `${KEY.slice(0, 9)} end`, true],
      ['stdout', 'another run', false],
    ]);
  });

  it('a header split across chunks (curl -v) is redacted as in one chunk', () => {
    const chunks = emitted([
      out('stderr', '> Authorization: Bea'),
      out('stderr', 'rer abc123def456\n> Accept: */*\n'),
    ]);
    expect(chunks.map((c) => c[1]).join('')).toBe(`> Authorization: Bearer ${REDACTED}\n> Accept: */*\n`);
  });

  it('passes empty chunks and text without secrets through as they came', () => {
    const chunks = [out('stdout', 'hello '), out('stdout', ''), out('stdout', 'world\n'), exit];
    expect(emitted(chunks)).toEqual(chunks.map((c) => [c.stream, c.chunk, c.exit !== undefined]));
  });

  it('for any split of a command output into chunks, the joined chunks are the redaction of the whole', () => {
    const part = fc.constantFrom(
      KEY,
      KEY.slice(0, 9),
      'x-api-key: ',
      'Bearer ',
      'tok_12345678',
      ' ',
      '\n',
      'ok',
      '"',
    );
    fc.assert(
      fc.property(
        fc.array(part, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (parts, points) => {
          const text = parts.join('');
          // A cut in a key's first MIN_HELD − 1 characters lets them out (SecretRedactor.stream()): not here.
          const starts = new Set<number>();
          for (let p = text.indexOf(KEY); p >= 0; p = text.indexOf(KEY, p + 1))
            for (let d = 1; d < MIN_HELD; d++) starts.add(p + d);
          const pieces = cut(
            text,
            points.map((p) => p % (text.length + 1)).filter((p) => !starts.has(p)),
          );
          const chunks = emitted([...pieces.map((p) => out('stdout', p)), exit]);
          expect(chunks.map((c) => c[1]).join('')).toBe(redactor.text(text));
          expect(chunks.filter((c) => c[2])).toHaveLength(1);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

const model = hostileServer();
const work = workspace('rt-terminal-secrets-');

/** A plugin tool that prints these chunks on one terminal (the last with the exit). */
function printing(pieces: string[], withExit = true) {
  return {
    name: 'printer',
    tools: () => [
      defineTool<unknown>({
        name: 'print',
        description: 'prints',
        inputSchema: Type.Object({}),
        execute: async (_input, ctx) => {
          for (const [i, text] of pieces.entries()) {
            const last = withExit && i === pieces.length - 1;
            ctx.terminal({
              terminalId: 'term-p',
              stream: 'stdout',
              chunk: text,
              ...(last ? { exit: { code: 0 } } : {}),
            });
          }
          return 'printed';
        },
      }),
    ],
  };
}

const callPrint = sse([
  ROLE,
  chunk({
    tool_calls: [{ index: 0, id: 'call_p', type: 'function', function: { name: 'print', arguments: '{}' } }],
  }),
  chunk({}, 'tool_calls'),
  'data: [DONE]\n\n',
]);

describe('a tool that prints a key across terminal chunks', () => {
  for (const withExit of [true, false]) {
    it(`leaves it whole in no frame and no terminal.output event (${withExit ? 'with' : 'without'} an exit)`, async () => {
      model.script(callPrint, sse([ROLE, chunk({ content: 'done' }), ...STOP]));
      const pieces = [`KEY=${KEY.slice(0, 15)}`, `${KEY.slice(15)}\n`, 'bye\n'];
      const r = await runTurn(model.url, work.dir, { apiKey: KEY, plugins: [printing(pieces, withExit)] });
      expect(r.outcome.outcome).toBe('completed');
      const terminal = r.events.filter((e) => e.kind === 'terminal.output');
      const joined = terminal.map((e) => (e.payload as { chunk: string }).chunk).join('');
      expect(joined).toBe(`KEY=${REDACTED}\nbye\n`);
      expect(joined).not.toContain(KEY.slice(0, MIN_HELD));
      expect(JSON.stringify(r.frames)).not.toContain(KEY.slice(0, 12));
      // The tails went out before the call's end.
      const ends = r.events.findIndex((e) => e.kind === 'tool.completed');
      expect(r.events.findLastIndex((e) => e.kind === 'terminal.output')).toBeLessThan(ends);
    });
  }
});
