import type { JsonValue } from '@agentlane/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StringSharer } from '../src/driver/string-sharer';
import {
  EMPTY_SHARED,
  resolveShared,
  SHARED_KEEP,
  SHARED_MIN_CHARS,
  type SharedTable,
} from '../src/translate/shared-strings';
import { chatDriver, fakeModelAndWorkspace, runTurn, translate } from './harness';

/** The frames the writer meant: each stored frame resolved in order, as the translator does. */
function resolveAll(stored: JsonValue[]): JsonValue[] {
  let table: SharedTable = EMPTY_SHARED;
  return stored.map((frame) => {
    const r = resolveShared(frame, table);
    table = r.table;
    return r.frame;
  });
}

const bytes = (frames: JsonValue[]) => frames.reduce<number>((n, f) => n + JSON.stringify(f).length, 0);

describe('shared strings of built-in frames', () => {
  it('any sequence of frames resolves back to what was written, the writer’s objects untouched', () => {
    // Few distinct large strings (more than SHARED_KEEP of them, so some are forgotten and declared again).
    const large = Array.from({ length: SHARED_KEEP + 3 }, (_, i) => `${i}:`.padEnd(SHARED_MIN_CHARS, 'x'));
    const text = fc.oneof(fc.constantFrom(...large), fc.string({ maxLength: 4 }));
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('a', 'b', 'content'), tie('v'), { maxKeys: 3 }),
      ),
    })).v as fc.Arbitrary<JsonValue>;
    const frame = fc.record({ rt: fc.constant('tool.start'), input: value, other: value });
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 12 }), (frames) => {
        const before = JSON.stringify(frames);
        const sharer = new StringSharer();
        const stored = frames.map((f) => sharer.share(f as JsonValue));
        expect(JSON.stringify(frames)).toBe(before);
        expect(resolveAll(stored)).toEqual(frames);
        // A string is stored whole at most once while it is remembered.
        expect(bytes(stored)).toBeLessThanOrEqual(bytes(frames as JsonValue[]) + 256 * frames.length);
      }),
      { numRuns: 150 },
    );
  });

  it('a use of a string nobody declared, or a declaration that is not a string of the frame, is refused', () => {
    expect(() =>
      resolveShared({ rt: 'tool.start', input: null, sharedUses: [['s9', 'input']] }, EMPTY_SHARED),
    ).toThrow(/not known/);
    expect(() =>
      resolveShared({ rt: 'tool.start', input: 3, sharedStrings: { s1: ['input'] } }, EMPTY_SHARED),
    ).toThrow(/not a string/);
  });

  it('a frame whose shared use does not resolve becomes a warning, and the run goes on', () => {
    const { events } = translate([
      {
        rt: 'tool.start',
        toolCallId: 'c',
        name: 'x',
        kind: 'other',
        input: null,
        sharedUses: [['s1', 'input']],
      },
    ]);
    expect(events.map((e) => e.draft.kind)).toContain('harness.warning');
  });
});

describe('a large tool input through the built-in engine', () => {
  const env = fakeModelAndWorkspace('shared-strings-');

  it('is stored once per distinct text, and translates to the same events as the whole frames', async () => {
    const content = 'line of the file\n'.repeat(20_000);
    env.fake.setScenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'big.txt', content }, id: 'call_big' }] },
      { text: 'written' },
    ]);
    const run = await runTurn(chatDriver(env.fake.url), { prompt: 'write it', workDir: env.work });
    expect(run.outcome.outcome).toBe('completed');
    const whole = resolveAll(run.frames);
    const stored = bytes(run.frames);
    // Whole: the input in the tool-call part, the approval request, tool.start, the approval (input and
    // diff), the file change and the audit row, besides its streamed pieces. Stored: three distinct texts, each
    // once (the streamed JSON text, the parsed input in the tool-call part, the diff in the approval).
    expect(bytes(whole) / content.length).toBeGreaterThan(7);
    expect(stored / content.length).toBeLessThan(3.6);
    const again = translate(whole);
    expect(run.events).toEqual(again.events);
    expect(run.audit).toEqual(again.audit);
    // The whole input went out once, parsed (for readers that do not join the streamed pieces).
    const withInput = run.events.filter(
      (e) => (e.draft.payload as { input?: { content?: string } }).input?.content === content,
    );
    expect(withInput.map((e) => e.draft.kind)).toContain('tool.progress');
  });
});
