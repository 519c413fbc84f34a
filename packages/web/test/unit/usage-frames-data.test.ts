import type { StoredRow } from '@agentlane/client';
import type { CanonicalEvent, CanonicalEventDraft, JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { matchFrames, type NativeFrame, payloadIds } from '../../src/inspectors/frames-match';
import { usageData } from '../../src/inspectors/usage-data';

let order = 0;
function row(
  turnId: string,
  draft: CanonicalEventDraft,
  identity: Record<string, string> = {},
  ts?: string,
): StoredRow {
  order += 1;
  const event = {
    ...draft,
    schemaVersion: 1,
    eventId: `e${order}`,
    seq: order,
    runId: 'run-1',
    threadId: 'th',
    turnId,
    ts: ts ?? new Date(Date.UTC(2026, 0, 1, 9, 0, order)).toISOString(),
    identity: { provider: 'p', ...identity },
  } as CanonicalEvent;
  return {
    eventId: event.eventId,
    revision: 1,
    deliverySeq: order,
    order,
    provisional: false,
    namespace: [],
    event,
  };
}

const usage = (turnId: string, payload: Extract<CanonicalEventDraft, { kind: 'usage.updated' }>['payload']) =>
  row(turnId, { kind: 'usage.updated', payload });

describe('usageData', () => {
  it('a turn is its turn report, else its steps; models from steps, the rest to the turn’s model', () => {
    const rows = [
      usage('t2', { scope: 'step', model: 'b', inputTokens: 10, outputTokens: 1 }),
      usage('t1', { scope: 'step', model: 'a', inputTokens: 100, outputTokens: 10 }),
      usage('t1', { scope: 'step', model: 'b', inputTokens: 50, outputTokens: 5 }),
      // The turn total counts a call no step reported (a planning call): 200 more input on model a.
      usage('t1', {
        scope: 'turn',
        model: 'a',
        inputTokens: 350,
        outputTokens: 15,
        cost: { amount: 0.5, currency: 'EUR' },
        contextUsedTokens: 1000,
        contextWindowTokens: 8000,
      }),
      usage('', { scope: 'session', inputTokens: 9999 }),
    ];
    const data = usageData(rows, ['t1', 't2']);
    expect(data.turns).toEqual([
      {
        turn: 1,
        turnId: 't1',
        input: 350,
        output: 15,
        reasoning: 0,
        cached: 0,
        cost: 0.5,
        contextUsed: 1000,
        contextWindow: 8000,
        contextPct: 12.5,
      },
      { turn: 2, turnId: 't2', input: 10, output: 1, reasoning: 0, cached: 0 },
    ]);
    expect(data.models).toEqual([
      { model: 'a', input: 300, output: 10, reasoning: 0, cached: 0, cost: 0.5, reports: 1 },
      { model: 'b', input: 60, output: 6, reasoning: 0, cached: 0, reports: 2 },
    ]);
    expect(data).toMatchObject({ currency: 'EUR', hasCost: true, hasContext: true });
  });

  it('a turn with only a report counts it for its model; no model is "unknown"', () => {
    const data = usageData([usage('t1', { scope: 'turn', inputTokens: 5, outputTokens: 2 })]);
    expect(data.models).toEqual([
      { model: 'unknown', input: 5, output: 2, reasoning: 0, cached: 0, reports: 1 },
    ]);
    expect(data).toMatchObject({ hasCost: false, hasContext: false });
  });
});

const frame = (nativeSeq: number, body: JsonValue, second: number, rawText?: string): NativeFrame => ({
  nativeSeq,
  receivedAt: new Date(Date.UTC(2026, 0, 1, 9, 0, second)).toISOString(),
  frame: body,
  raw:
    rawText === undefined ? null : { bytes: rawText.length, sha256: '0', storage: 'inline', text: rawText },
});

describe('matchFrames', () => {
  const frames = [
    frame(1, { type: 'start' }, 1),
    frame(2, { type: 'text', id: 'msg_9' }, 2),
    frame(3, { type: 'tool-call', toolCallId: 'call_1' }, 3),
    frame(4, { opaque: true }, 4, '{"part":"prt_7"}'),
  ];

  it('by the identity’s native ids, in the frame or its raw text', () => {
    const message = row(
      't',
      { kind: 'message.started', payload: { messageId: 'm', role: 'assistant' } },
      {
        nativeMessageId: 'msg_9',
      },
    );
    expect(matchFrames(message, frames)).toMatchObject({ by: 'identity', ids: ['msg_9'] });
    expect(matchFrames(message, frames).frames.map((f) => f.nativeSeq)).toEqual([2]);
    const part = row(
      't',
      { kind: 'message.started', payload: { messageId: 'm', role: 'assistant' } },
      {
        nativePartId: 'prt_7',
      },
    );
    expect(matchFrames(part, frames).frames.map((f) => f.nativeSeq)).toEqual([4]);
  });

  it('by the payload’s ids when the identity names none, else the last frame before the event', () => {
    const tool = row('t', {
      kind: 'tool.started',
      payload: { toolCallId: 'call_1', name: 'list_files', kind: 'read', input: {}, status: 'pending' },
    });
    expect(matchFrames(tool, frames)).toMatchObject({ by: 'payload ids', ids: ['call_1'] });
    const ended = row(
      't',
      { kind: 'turn.completed', payload: { stopReason: 'end_turn' } },
      {},
      new Date(Date.UTC(2026, 0, 1, 9, 0, 3, 500)).toISOString(),
    );
    expect(matchFrames(ended, frames)).toMatchObject({ by: 'time', ids: [] });
    expect(matchFrames(ended, frames).frames.map((f) => f.nativeSeq)).toEqual([3]);
    expect(matchFrames(ended, []).by).toBe('none');
  });

  it('payload ids: string …Id fields, nested ones too, not artifact ids', () => {
    expect(
      payloadIds({
        toolCallId: 'call_1',
        nested: { approvalId: 'ap_2' },
        artifact: { id: 'x', blobId: 'zzz' },
      }),
    ).toEqual(['call_1', 'ap_2']);
  });
});
