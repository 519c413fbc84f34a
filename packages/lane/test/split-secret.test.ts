import type { AuditableCall, JsonObject, JsonValue } from '@agentlane/contract';
import { type NativeFrameRecord, REDACTED, SecretRedactor, type Translator } from '@agentlane/engine-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { RunTranslation } from '../src';
import { guardFrame } from '../src/internal';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { openTestPipeline } from './helpers/test-pipeline';

const KEY = 'sk-ant-api03-THISISTHESECRETKEYVALUE0123456789';
/** Long enough that its presence means the key was shown in large part. */
const PREFIX = KEY.slice(0, 16);

type ChunkState = { text: string; n: number };

/**
 * A translator that joins message chunks as the ACP one does: `{ chunk }` frames become message.delta events,
 * `{ done }` the message.completed event with the joined text and an audit row quoting it.
 */
function joiningTranslator(): Translator {
  return {
    provider: 'test',
    initialState: () => ({ text: '', n: 0 }),
    translate(record: NativeFrameRecord, state: ChunkState) {
      const f = record.frame as { chunk?: string; done?: boolean };
      if (typeof f.chunk === 'string')
        return {
          state: { text: state.text + f.chunk, n: state.n + 1 },
          events: [
            {
              key: `delta:${state.n}`,
              draft: { kind: 'message.delta', payload: { messageId: 'm1', partId: 'p1', delta: f.chunk } },
            },
          ],
        };
      if (f.done) {
        const row = {
          record_id: '01J00000000000000000000001',
          turn_id: 't',
          payload: { kind: 'model_call', response: { textPreview: state.text.slice(0, 200) } },
        } as unknown as AuditableCall;
        return {
          state,
          events: [
            {
              key: 'completed:m1',
              draft: {
                kind: 'message.completed',
                payload: { messageId: 'm1', role: 'assistant', text: state.text },
              },
            },
          ],
          audit: [row],
        };
      }
      return { state, events: [] };
    },
    finish: (state: ChunkState) => ({ state, events: [] }),
  } as unknown as Translator;
}

const redactor = new SecretRedactor([KEY]);
const ctx = { threadId: 'th', runId: 'run_1', turnId: 'run_1', provider: 'test' };

/** The frames as RunPipeline stores them: each one redacted on its own (guardFrame). */
function stored(frames: JsonValue[]) {
  return frames.map((f, i) => ({
    runId: 'run_1',
    nativeSeq: i + 1,
    receivedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    frame: guardFrame(f, undefined, redactor).frame,
  }));
}

const split: JsonValue[] = [
  { chunk: `your key is ${KEY.slice(0, 20)}` },
  { chunk: `${KEY.slice(20)}, keep it` },
  { done: true },
];

function translateAll(frames: JsonValue[], options = { redactor }) {
  const t = new RunTranslation(joiningTranslator(), ctx, options);
  const steps = stored(frames).map((r) => t.push(r));
  steps.push(t.finish('2026-01-01T00:01:00.000Z'));
  return {
    events: steps.flatMap((s) => s.events.map((e) => e.event)),
    audit: steps.flatMap((s) => s.audit ?? []),
  };
}

const payload = (e: { payload: unknown }) => e.payload as JsonObject;

describe('RunTranslation with a redactor: a key split across two message chunks', () => {
  it('is replaced whole in message.completed, the deltas and the audit row', () => {
    const { events, audit } = translateAll(split);
    const text = JSON.stringify({ events, audit });
    expect(text).not.toContain(PREFIX);
    const completed = events.filter((e) => e.kind === 'message.completed').map((e) => payload(e).text);
    expect(completed).toEqual([`your key is ${REDACTED}, keep it`]);
    // The deltas add up to the completed text: the held start of the key went out with the next chunk.
    const deltas = events.filter((e) => e.kind === 'message.delta').map((e) => payload(e).delta);
    expect(deltas.join('')).toBe(`your key is ${REDACTED}, keep it`);
    expect(deltas[0]).toBe('your key is ');
    expect(JSON.stringify(audit)).toContain(REDACTED);
  });

  it('emits a start of a key that never completes before the message ends, as a delta of its own', () => {
    const { events } = translateAll([{ chunk: `see ${KEY.slice(0, 20)}` }, { done: true }] as JsonValue[]);
    const kinds = events.map((e) => e.kind);
    expect(kinds).toEqual(['message.delta', 'message.delta', 'message.completed']);
    expect(events.map((e) => payload(e).delta ?? payload(e).text)).toEqual([
      'see ',
      KEY.slice(0, 20),
      `see ${KEY.slice(0, 20)}`,
    ]);
  });

  it('emits held text at the end of a source that never completed the message', () => {
    const { events } = translateAll([{ chunk: `see ${KEY.slice(0, 20)}` }]);
    expect(events.map((e) => payload(e).delta).join('')).toBe(`see ${KEY.slice(0, 20)}`);
  });

  it('makes the same events whether the frames come one at a time or in one batch', () => {
    const one = translateAll(split).events;
    const t = new RunTranslation(joiningTranslator(), ctx, { redactor });
    const batch = { events: [] as { event: unknown }[], artifacts: [] };
    for (const r of stored(split)) t.pushInto(r, batch as never);
    const all = [...batch.events, ...t.finish('2026-01-01T00:01:00.000Z').events].map((e) => e.event);
    expect(JSON.stringify(all)).toBe(JSON.stringify(one));
  });

  it('without a redactor the joined text keeps the key (what the redactor is for)', () => {
    const { events } = translateAll(split, {} as never);
    expect(JSON.stringify(events)).toContain(KEY);
  });
});

/** A translator that makes each `{ key, kind, payload }` frame the event it describes. */
const passThrough = {
  provider: 'test',
  initialState: () => null,
  translate: (record: NativeFrameRecord, state: null) => {
    const f = record.frame as { key: string; kind: string; payload: JsonObject };
    return { state, events: [{ key: f.key, draft: { kind: f.kind, payload: f.payload } }] };
  },
  finish: (state: null) => ({ state, events: [] }),
} as unknown as Translator;

describe('RunTranslation with a redactor: other streamed texts', () => {
  it('replaces a key split across reasoning deltas and across tool input deltas', () => {
    const t = new RunTranslation(passThrough, ctx, { redactor });
    const ev = (key: string, kind: string, payload: JsonObject) => ({ key, kind, payload });
    const frames = [
      ev('r1', 'reasoning.delta', { reasoningId: 'r', delta: `think ${KEY.slice(0, 20)}` }),
      ev('r2', 'reasoning.delta', { reasoningId: 'r', delta: `${KEY.slice(20)} done` }),
      ev('t1', 'tool.progress', {
        toolCallId: 'c',
        status: 'running',
        inputDelta: `{"k":"${KEY.slice(0, 30)}`,
      }),
      ev('t2', 'tool.progress', { toolCallId: 'c', status: 'running', inputDelta: `${KEY.slice(30)}"}` }),
      ev('t3', 'tool.completed', { toolCallId: 'c', status: 'completed' }),
    ];
    const events = stored(frames).flatMap((r) => t.push(r).events.map((e) => e.event));
    expect(JSON.stringify(events)).not.toContain(PREFIX);
    const of = (kind: string, field: string) =>
      events
        .filter((e) => e.kind === kind)
        .map((e) => payload(e)[field] ?? '')
        .join('');
    expect(of('reasoning.delta', 'delta')).toBe(`think ${REDACTED} done`);
    expect(of('tool.progress', 'inputDelta')).toBe(`{"k":"${REDACTED}"}`);
  });
});

describe("RunTranslation with a redactor: other engines' terminal output", () => {
  const ev = (key: string, payload: JsonObject) => ({ key, kind: 'terminal.output', payload });
  const out = (stream: string, chunk: string, more: JsonObject = {}) => ({
    terminalId: 'term',
    toolCallId: 'call',
    stream,
    chunk,
    ...more,
  });
  const chunks = (events: { kind: string; payload: unknown }[]) =>
    events.filter((e) => e.kind === 'terminal.output').map((e) => payload(e));

  it('replaces a key split across two chunks of one stream whole, the other stream between', () => {
    const t = new RunTranslation(passThrough, ctx, { redactor });
    const frames = [
      ev('o1', out('stdout', `KEY=${KEY.slice(0, 20)}`)),
      ev('e1', out('stderr', 'warning\n')),
      ev('o2', out('stdout', `${KEY.slice(20)}\n`)),
      ev('x', out('stdout', '', { exit: { code: 0 } })),
    ];
    const events = stored(frames).flatMap((r) => t.push(r).events.map((e) => e.event));
    expect(JSON.stringify(events)).not.toContain(PREFIX);
    const of = (stream: string) =>
      chunks(events)
        .filter((p) => p.stream === stream)
        .map((p) => p.chunk)
        .join('');
    expect(of('stdout')).toBe(`KEY=${REDACTED}\n`);
    expect(of('stderr')).toBe('warning\n');
    expect(chunks(events).at(-1)).toMatchObject({ chunk: '', exit: { code: 0 } });
  });

  it("sends a held tail out by the terminal's exit chunk: the other stream's first, its own with the exit", () => {
    const t = new RunTranslation(passThrough, ctx, { redactor });
    const frames = [
      ev('e1', out('stderr', `e ${KEY.slice(0, 10)}`)),
      ev('o1', out('stdout', `o ${KEY.slice(0, 12)}`)),
      ev('x', out('stdout', ' end', { exit: { code: 1 } })),
    ];
    const events = stored(frames).flatMap((r) => t.push(r).events.map((e) => e.event));
    expect(chunks(events).map((p) => [p.stream, p.chunk, p.exit !== undefined])).toEqual([
      ['stderr', 'e ', false],
      ['stdout', 'o ', false],
      ['stderr', KEY.slice(0, 10), false],
      ['stdout', `${KEY.slice(0, 12)} end`, true],
    ]);
    // Nothing is left to go out at the end of the source.
    expect(t.finish('2026-01-01T00:01:00.000Z').events).toEqual([]);
  });
});

describe('RunPipeline: audit rows of joined frames', () => {
  let t: TestStore | null = null;
  afterEach(async () => {
    await t?.cleanup();
    t = null;
  });

  it('are redacted whole before they are recorded', async () => {
    t = await sqliteTestStore({ fast: true });
    // The translation alone does not redact here: the pipeline's rows are still redacted.
    const { pipeline, hub, audited } = await openTestPipeline(t, {
      translator: joiningTranslator() as never,
      redactor,
    });
    for (const f of split) pipeline.emit(f);
    await pipeline.drain();
    hub.close();
    expect(audited).toHaveLength(1);
    expect(JSON.stringify(audited)).not.toContain(PREFIX);
    expect(JSON.stringify(audited)).toContain(REDACTED);
  });
});
