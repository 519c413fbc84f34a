import type { JsonValue } from '@agentlane/contract';
import { type NativeFrameRecord, REDACTED, SecretRedactor, type Translator } from '@agentlane/engine-kit';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { RunTranslation } from '../src';
import {
  emptyShared,
  resolveShared,
  SHARED_KEEP,
  SHARED_MIN_CHARS,
  USE_KEY,
} from '../src/shared-strings/resolve';
import { StringSharer } from '../src/shared-strings/sharer';
import { deepFrame } from './helpers/frame-driver';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { openTestPipeline } from './helpers/test-pipeline';

/** The frames the writer meant: each stored frame resolved in order, as RunTranslation does. */
function resolveAll(stored: JsonValue[]): JsonValue[] {
  const table = emptyShared();
  return stored.map((frame) => resolveShared(frame, table));
}

/** How many string values of `value` equal `text`. */
function count(value: unknown, text: string): number {
  if (value === text) return 1;
  if (value === null || typeof value !== 'object') return 0;
  return Object.values(value).reduce<number>((n, v) => n + count(v, text), 0);
}

const bytes = (frames: JsonValue[]) => frames.reduce<number>((n, f) => n + JSON.stringify(f).length, 0);

describe('shared strings: the writer and the reader', () => {
  it('any sequence of frames resolves back to what was written, the written frames untouched', () => {
    // More distinct large strings than SHARED_KEEP, so some are forgotten and declared again.
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
    const frame = fc.record({ t: fc.constant('tool'), input: value, other: value });
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 12 }), (frames) => {
        const before = JSON.stringify(frames);
        const sharer = new StringSharer();
        const stored = frames.map((f) => sharer.share(f as JsonValue));
        expect(JSON.stringify(frames)).toBe(before);
        expect(resolveAll(stored)).toEqual(frames);
        expect(bytes(stored)).toBeLessThanOrEqual(bytes(frames as JsonValue[]) + 256 * frames.length);
      }),
      { numRuns: 150 },
    );
  });

  it('a use of a string nobody declared is refused', () => {
    expect(() => resolveShared({ t: 'x', input: null, [USE_KEY]: [['s9', 'input']] }, emptyShared())).toThrow(
      /not known/,
    );
  });
});

/** Each `{ t: 'tool', id, input }` frame becomes a tool.started event carrying its input. */
const toolTranslator: Translator<null> = {
  provider: 'test',
  initialState: () => null,
  translate(record: NativeFrameRecord, state: null) {
    const f = record.frame as { t?: string; id?: string; input?: JsonValue };
    if (f?.t !== 'tool') return { state, events: [] };
    const payload = { toolCallId: String(f.id), name: 'x', kind: 'other', input: f.input, status: 'running' };
    return { state, events: [{ key: `tool:${f.id}`, draft: { kind: 'tool.started', payload } }] };
  },
  finish: (state: null) => ({ state, events: [] }),
} as unknown as Translator<null>;

describe('RunPipeline stores a string its frames repeat once, after redaction', () => {
  let t: TestStore | null = null;
  afterEach(async () => {
    await t?.cleanup();
    t = null;
  });

  it('events are what the whole frames make, whatever the redaction or the depth guard did to a declaration', async () => {
    t = await sqliteTestStore({ fast: true });
    const { store } = t;
    const redactor = new SecretRedactor(['sk-not-in-these-frames-0123456789']);
    const {
      pipeline,
      hub,
      seen: live,
      ctx,
      runId,
    } = await openTestPipeline(t, {
      translator: toolTranslator as never,
      redactor,
      translationRedacts: true,
      shareLargeStrings: true,
    });
    const S = 'the file\n'.repeat(8000);
    const S2 = 'another file\n'.repeat(6000);
    const deep = deepFrame(300).frame as { v: JsonValue };
    const frames: JsonValue[] = [
      // A credential-named key: its value is redacted in the stored frame; `content` must stay whole.
      { t: 'tool', id: 'a', input: { authorization: S, content: S } },
      { t: 'tool', id: 'b', input: { content: S } },
      // A key shaped like a bearer credential: its path must not be rewritten by the split-field redactor.
      { t: 'tool', id: 'c', input: { 'Bearer abc': S } },
      { t: 'tool', id: 'd', input: { 'Bearer abc': S, other: S } },
      // Dropped by the depth guard: what it would have declared is declared again by the next frame.
      { t: 'tool', id: 'deep', input: { big: S2, deep: deep.v } },
      { t: 'tool', id: 'e', input: { x: S2 } },
    ];
    for (const f of frames) pipeline.emit(f);
    await pipeline.drain();
    hub.close();
    expect(pipeline.error).toBeNull();

    const stored = (await store.readFrames(runId)).map((f) => f.frame);
    // Each is stored whole once (S2's first frame was dropped by the depth guard, a preview kept instead).
    expect(count(stored, S)).toBe(1);
    expect(count(stored, S2)).toBe(1);
    expect(JSON.stringify(stored).length).toBeLessThan(S.length * 1.5 + S2.length * 1.5);
    // A fresh translation of the stored frames, as the final pass makes it.
    const again = new RunTranslation(toolTranslator, ctx, { redactor });
    const events = (await store.readFrames(runId)).flatMap((f) => again.push(f).events.map((b) => b.event));
    const inputs = Object.fromEntries(
      events.flatMap((e) => (e.kind === 'tool.started' ? [[e.payload.toolCallId, e.payload.input]] : [])),
    );
    expect(inputs.a).toEqual({ authorization: REDACTED, content: S });
    expect(inputs.b).toEqual({ content: S });
    expect(inputs.c).toEqual({ 'Bearer abc': S });
    expect(inputs.d).toEqual({ 'Bearer abc': S, other: S });
    expect(inputs.e).toEqual({ x: S2 });
    expect(events.filter((e) => e.kind === 'harness.warning').map((e) => e.payload)).toEqual([]);
    // The live pass (its rows offload large inputs to artifacts) read every frame too: the same calls, no warning.
    const liveKinds = live.flatMap((e) => ('event' in e ? [e.event] : []));
    expect(liveKinds.filter((e) => e.kind === 'harness.warning')).toEqual([]);
    expect(
      liveKinds.flatMap((e) => (e.kind === 'tool.started' ? [e.payload.toolCallId] : [])).sort(),
    ).toEqual(Object.keys(inputs).sort());
  });

  it('a frame naming a string the run never declared becomes a warning and is not translated', () => {
    const translation = new RunTranslation(toolTranslator, {
      threadId: 'th',
      runId: 'r',
      turnId: 'r',
      provider: 'test',
    });
    const step = translation.push({
      runId: 'r',
      nativeSeq: 1,
      receivedAt: new Date(0).toISOString(),
      frame: { t: 'tool', id: 'x', input: { sharedString: 's1' }, [USE_KEY]: [['s1', 'input']] },
    });
    expect(step.events.map((b) => [b.event.kind, (b.event.payload as { code?: string }).code])).toEqual([
      ['harness.warning', 'shared_string_unresolved'],
    ]);
  });
});
