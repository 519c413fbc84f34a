import {
  AUDIT_RECORD_VERSION,
  type AuditableCall,
  type JsonValue,
  parseCanonicalEventDraft,
} from '@agentlane/contract';
import {
  deterministicUlid,
  emptyIdMap,
  idEntries,
  idGet,
  idSet,
  type TranslatedEvent,
} from '@agentlane/engine-kit';
import { freshFields, leftOpen } from '@agentlane/engine-kit/testing';
import { describe, expect, it } from 'vitest';
import { runtimeTranslator } from '../src/index';

const ctx = { threadId: 'thr_s', runId: 'run_s', turnId: 'run_s', provider: 'builtin' };
const STEP = { rt: 'part', stage: 'tool-loop', step: 1 };

function toolRow(seq: number, id: string): AuditableCall {
  return {
    record_id: deterministicUlid(Date.UTC(2026, 0, 1), `row-${seq}`),
    audit_record_version: AUDIT_RECORD_VERSION,
    session_id: 'thr_s',
    turn_id: 'run_s',
    stage_id: 'tool-loop',
    seq_within_turn: seq,
    created_at: '2026-01-01T00:00:00.000Z',
    actor_kind: 'runtime',
    session_auth_method: 'none',
    call_class: 'tool',
    provider: 'builtin',
    model: null,
    transport: 'in-process',
    status: 'error',
    latency_ms: 0,
    finish_reason: null,
    http_status: null,
    payload: { kind: 'tool_call', toolCallId: id, toolName: 'count', input: {}, error: 'not run' },
  };
}

/**
 * The frames of a turn whose model asks for `n` tool calls in one message, as the runtime writes them: each
 * call's input streamed in two pieces, then each call started, ended and given its ledger row.
 */
function manyCalls(n: number): JsonValue[] {
  const ids = Array.from({ length: n }, (_, i) => `call_${i}`);
  const frames: JsonValue[] = [{ harness: 'turn.started', prompt: 'count' }];
  for (const id of ids)
    frames.push(
      { ...STEP, part: { type: 'tool-input-start', id, toolName: 'count' } },
      { ...STEP, part: { type: 'tool-input-delta', id, delta: '{"n":' } },
      { ...STEP, part: { type: 'tool-input-delta', id, delta: '1}' } },
      { ...STEP, part: { type: 'tool-input-end', id } },
      { ...STEP, part: { type: 'tool-call', toolCallId: id, toolName: 'count', input: { n: 1 } } },
    );
  ids.forEach((id, i) => {
    frames.push(
      { rt: 'tool.start', toolCallId: id, name: 'count', kind: 'other', input: { n: 1 } },
      { rt: 'tool.end', toolCallId: id, status: 'failed', error: 'not run', durationMs: 0 },
      { rt: 'audit', row: toolRow(i + 1, id) as unknown as JsonValue },
    );
  });
  frames.push({ harness: 'turn.ended', outcome: 'completed' });
  return frames;
}

/** Translates `frames` as the lane does; `viaJson` every that many frames the state crosses JSON. */
function translate(frames: JsonValue[], viaJson = 0) {
  let state = runtimeTranslator.initialState(ctx);
  const seen = new WeakSet<object>();
  freshFields(state, seen);
  const events: TranslatedEvent[] = [];
  let audit = 0;
  let maxFresh = 0;
  frames.forEach((frame, i) => {
    const step = runtimeTranslator.translate(
      {
        runId: 'run_s',
        nativeSeq: i + 1,
        receivedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        frame,
      },
      state,
      ctx,
    );
    state = viaJson && (i + 1) % viaJson === 0 ? JSON.parse(JSON.stringify(step.state)) : step.state;
    if (!viaJson) maxFresh = Math.max(maxFresh, freshFields(state, seen));
    events.push(...step.events);
    audit += step.audit?.length ?? 0;
  });
  events.push(...runtimeTranslator.finish(state, ctx).events);
  return { events, audit, maxFresh };
}

describe('a turn with 3,000 tool calls', () => {
  const N = 3000;
  const frames = manyCalls(N);
  let once: ReturnType<typeof translate> | undefined;
  /** The turn translated once, shared by the tests that read it. */
  const linear = () => {
    once ??= translate(frames);
    return once;
  };

  it('each frame builds a bounded part of the state, not a copy of every call so far', () => {
    const big = linear();
    const small = translate(manyCalls(30));
    // Before: every frame copied the record of all calls seen (3,000 fields late in the turn; translating this
    // turn took 15-26 s). Now a step copies one path of a persistent map: under 200 fields whatever the size,
    // a few dozen more than for a turn of 30 calls (one more level of the trie).
    expect(big.maxFresh).toBeLessThan(200);
    expect(big.maxFresh - small.maxFresh).toBeLessThan(80);
  });

  it('gives every call its events and row, in order, with nothing left open', () => {
    const { events, audit } = linear();
    const count = (kind: string) => events.filter((e) => e.draft.kind === kind).length;
    expect(count('tool.started')).toBe(N);
    // Two input pieces, the whole input, running: four progress events a call.
    expect(count('tool.progress')).toBe(4 * N);
    expect(count('tool.completed')).toBe(N);
    expect(audit).toBe(N);
    expect(events.at(-1)?.draft.kind).toBe('turn.completed');
    const started = events.filter((e) => e.draft.kind === 'tool.started').map((e) => e.key);
    expect(started).toEqual(Array.from({ length: N }, (_, i) => `tool.started:call_${i}`));
    const pieces = events.filter((e) => e.key.startsWith('tool.input:call_7:')).map((e) => e.key);
    expect(pieces).toEqual(['tool.input:call_7:0', 'tool.input:call_7:5']);
    expect(new Set(events.map((e) => e.key)).size).toBe(events.length);
    expect(leftOpen(events)).toEqual([]);
    for (const e of events.slice(0, 50)) expect(parseCanonicalEventDraft(e.draft).ok).toBe(true);
  });

  it('a turn cut off mid-call closes each open call once, in the order they started', () => {
    const cut = manyCalls(N).slice(0, 1 + 5 * N + 3 * 10);
    cut.push({ harness: 'turn.ended', outcome: 'failed', error: 'engine died' });
    const { events } = translate(cut);
    const closed = events.filter((e) => e.draft.kind === 'tool.completed');
    expect(closed).toHaveLength(N);
    const failed = closed.slice(10).map((e) => (e.draft.payload as { toolCallId: string }).toolCallId);
    expect(failed).toEqual(Array.from({ length: N - 10 }, (_, i) => `call_${i + 10}`));
  });

  it('gives the same events when the state crosses JSON between frames', () => {
    expect(translate(frames, 997).events).toEqual(linear().events);
  });
});

describe('the persistent id map', () => {
  it('lists keys in the order Object.keys lists a record’s, and survives JSON', () => {
    const keys = ['b', '12', 'a', '__proto__', '7', 'constructor', '4294967295', 'b', '0', 'call_1'];
    let map = emptyIdMap<number>();
    const record: Record<string, number> = {};
    keys.forEach((k, i) => {
      map = idSet(map, k, i);
      Object.defineProperty(record, k, { value: i, enumerable: true, configurable: true, writable: true });
    });
    expect(idEntries(map)).toEqual(Object.keys(record).map((k) => [k, record[k]]));
    expect(idEntries(JSON.parse(JSON.stringify(map)))).toEqual(idEntries(map));
    expect(idGet(map, 'toString')).toBeUndefined();
    expect(idGet(map, 'constructor')).toBe(5);
  });

  it('leaves every older version as it was', () => {
    const versions = [emptyIdMap<number>()];
    for (let i = 0; i < 500; i++) versions.push(idSet(versions[i], `k${i % 300}`, i));
    versions.forEach((v, n) => {
      expect(v.size).toBe(Math.min(n, 300));
      if (n > 0) expect(idGet(v, `k${(n - 1) % 300}`)).toBe(n - 1);
      expect(idGet(v, `k${n % 300}`)).toBe(n >= 300 ? n - 300 : undefined);
    });
  });
});
