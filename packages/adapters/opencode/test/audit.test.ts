import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AuditableCall, formatIssues, type JsonValue, parseAuditableCall } from '@agentlane/contract';
import type { NativeFrameRecord } from '@agentlane/engine-kit';
import { describe, expect, it } from 'vitest';
import { OPENCODE_AUDIT_TRANSPORT, openCodeTranslator } from '../src';
import { CTX, readJsonl, records } from './trace';

// Golden: the recorded OpenCode `/event` frames → the audit rows the translator hands the lane.
// `UPDATE_GOLDEN=1` rewrites the expected file after a deliberate change.

const FIXTURES = join(import.meta.dirname, '__fixtures__');
const EXPECTED = join(FIXTURES, 'opencode.audit.expected.jsonl');
const FRAMES = readJsonl(join(FIXTURES, 'opencode.jsonl'));

function auditRows(input: NativeFrameRecord[]): AuditableCall[] {
  let state = openCodeTranslator.initialState(CTX);
  const rows: AuditableCall[] = [];
  for (const record of input) {
    const step = openCodeTranslator.translate(record, state, CTX);
    state = step.state;
    rows.push(...(step.audit ?? []));
  }
  rows.push(...(openCodeTranslator.finish(state, CTX).audit ?? []));
  for (const row of rows) {
    const parsed = parseAuditableCall(row);
    if (!parsed.ok) throw new Error(`${JSON.stringify(row).slice(0, 160)}\n${formatIssues(parsed.errors)}`);
  }
  return rows;
}

/** The recorded frames before the write tool completed, then what the harness adds. */
function cutBeforeToolEnd(tail: JsonValue[]): NativeFrameRecord[] {
  const end = FRAMES.findIndex((f) => {
    const text = JSON.stringify(f);
    return text.includes('"type":"tool"') && text.includes('"status":"completed"');
  });
  expect(end).toBeGreaterThan(0);
  return records([...FRAMES.slice(0, end), ...tail]);
}

describe('OpenCode audit rows', () => {
  const rows = auditRows(records(FRAMES));

  it('match the committed golden rows', () => {
    const actual = `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
    if (process.env.UPDATE_GOLDEN === '1' || !existsSync(EXPECTED)) writeFileSync(EXPECTED, actual);
    expect(actual).toBe(readFileSync(EXPECTED, 'utf8'));
  });

  it('the write tool, then the turn: latency from the tool part times, tokens summed over the steps', () => {
    expect(rows.map((r) => [r.call_class, r.seq_within_turn, r.status])).toEqual([
      ['tool', 1, 'ok'],
      ['model', 2, 'ok'],
    ]);
    const [tool, model] = rows;
    expect(tool).toMatchObject({
      provider: 'opencode',
      transport: OPENCODE_AUDIT_TRANSPORT,
      stage_id: 'engine-turn',
      actor_kind: 'engine',
      latency_ms: 39, // state.time.end - state.time.start of the tool part
    });
    expect(tool?.payload).toMatchObject({
      kind: 'tool_call',
      toolCallId: 'call_1',
      toolName: 'write',
      input: { filePath: '/workspace/project/hello.txt' },
      outputPreview: 'Wrote file successfully.',
    });
    expect(model).toMatchObject({ model: 'fake/fake-model', finish_reason: 'end_turn' });
    // Two step-finish parts of 10 input / 5 output tokens each.
    expect(model?.payload).toMatchObject({
      kind: 'model_call',
      usage: { inputTokens: 20, outputTokens: 10 },
      response: { toolCalls: [{ toolCallId: 'call_1', toolName: 'write' }] },
    });
  });

  it('re-translating the same frames rebuilds byte-identical rows (record ids included)', () => {
    expect(auditRows(records(FRAMES))).toEqual(rows);
  });

  it('a cancelled turn: the open tool ends cancelled before the turn does, then the model row says cancelled', () => {
    const cut = auditRows(
      cutBeforeToolEnd([
        { harness: 'turn.cancel_requested' },
        { harness: 'turn.ended', outcome: 'cancelled' },
      ]),
    );
    expect(cut.map((r) => [r.call_class, r.status, r.seq_within_turn])).toEqual([
      ['tool', 'cancelled', 1],
      ['model', 'cancelled', 2],
    ]);
    expect(cut[0]?.payload).toMatchObject({ toolCallId: 'call_1', error: 'cancelled' });
  });

  it('a cancelled turn: nothing of the turn follows turn.completed (clients stop reading there)', () => {
    let state = openCodeTranslator.initialState(CTX);
    const kinds: string[] = [];
    const input = cutBeforeToolEnd([
      { harness: 'turn.cancel_requested' },
      { harness: 'turn.ended', outcome: 'cancelled' },
    ]);
    for (const record of input) {
      const step = openCodeTranslator.translate(record, state, CTX);
      state = step.state;
      kinds.push(...step.events.map((e) => e.draft.kind));
    }
    kinds.push(...openCodeTranslator.finish(state, CTX).events.map((e) => e.draft.kind));
    const end = kinds.indexOf('turn.completed');
    expect(kinds.slice(0, end)).toContain('tool.completed');
    expect(kinds.slice(end + 1).filter((k) => k.startsWith('tool.') || k.startsWith('message.'))).toEqual([]);
  });
});
