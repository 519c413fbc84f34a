import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AuditableCall, formatIssues, type JsonValue, parseAuditableCall } from '@agentlane/contract';
import type { NativeFrameRecord } from '@agentlane/engine-kit';
import { describe, expect, it } from 'vitest';
import { ACP_AUDIT_TRANSPORT, acpTranslator } from '../src';
import { CTX, readJsonl, records } from './trace';

// Golden: recorded ACP frames → the audit rows the translator hands the lane (one per tool call that ended,
// one model row per turn). `UPDATE_GOLDEN=1` rewrites the expected files after a deliberate change.

const FIXTURES = join(import.meta.dirname, '__fixtures__');
const traces = readdirSync(FIXTURES).filter((f) => f.endsWith('.jsonl') && !f.endsWith('.expected.jsonl'));

function auditRows(input: NativeFrameRecord[]): AuditableCall[] {
  let state = acpTranslator.initialState(CTX);
  const rows: AuditableCall[] = [];
  for (const record of input) {
    const step = acpTranslator.translate(record, state, CTX);
    state = step.state;
    rows.push(...(step.audit ?? []));
  }
  rows.push(...(acpTranslator.finish(state, CTX).audit ?? []));
  return rows;
}

function assertValid(rows: AuditableCall[]): void {
  for (const row of rows) {
    const parsed = parseAuditableCall(row);
    if (!parsed.ok) throw new Error(`${JSON.stringify(row).slice(0, 160)}\n${formatIssues(parsed.errors)}`);
  }
}

/** The recorded frames up to (not including) the frame that completes the tool, then what the harness adds. */
function cutBeforeToolEnd(file: string, tail: JsonValue[]): NativeFrameRecord[] {
  const frames = readJsonl(join(FIXTURES, file));
  const end = frames.findIndex((f) => {
    const text = JSON.stringify(f);
    return text.includes('"tool_call_update"') && text.includes('"status":"completed"');
  });
  expect(end).toBeGreaterThan(0);
  return records([...frames.slice(0, end), ...tail]);
}

describe.each(traces)('ACP audit rows of %s', (file) => {
  const expectedPath = join(FIXTURES, file.replace(/\.jsonl$/, '.audit.expected.jsonl'));
  const rows = auditRows(records(readJsonl(join(FIXTURES, file))));

  it('match the committed golden rows', () => {
    const actual = `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
    if (process.env.UPDATE_GOLDEN === '1' || !existsSync(expectedPath)) writeFileSync(expectedPath, actual);
    expect(actual).toBe(readFileSync(expectedPath, 'utf8'));
  });

  it('are valid contract rows: one tool row, then the turn model row, over the ACP transport', () => {
    assertValid(rows);
    expect(rows.map((r) => [r.call_class, r.seq_within_turn, r.status])).toEqual([
      ['tool', 1, 'ok'],
      ['model', 2, 'ok'],
    ]);
    for (const row of rows) {
      expect(row).toMatchObject({
        session_id: CTX.threadId,
        turn_id: CTX.turnId,
        stage_id: 'engine-turn',
        actor_kind: 'engine',
        provider: 'acp',
        transport: ACP_AUDIT_TRANSPORT,
        http_status: null,
      });
    }
    const [tool, model] = rows;
    expect(tool?.payload.kind).toBe('tool_call');
    expect(model?.payload).toMatchObject({
      kind: 'model_call',
      response: { textPreview: expect.stringContaining('Done: hello.txt was written.') },
    });
    if (model?.payload.kind === 'model_call') {
      expect(model.payload.response.toolCalls.map((c) => c.toolCallId)).toEqual([
        tool?.payload.kind === 'tool_call' ? tool.payload.toolCallId : '',
      ]);
    }
  });

  it('re-translating the same frames rebuilds byte-identical rows (record ids included)', () => {
    const again = auditRows(records(readJsonl(join(FIXTURES, file))));
    expect(again).toEqual(rows);
    const keys = rows.map((r) => `${r.session_id}/${r.turn_id}/${r.stage_id}/${r.seq_within_turn}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('ACP audit rows: what each engine shows', () => {
  it('Claude Code: the approval decision on the tool row, per-turn tokens and (new session) the cost', () => {
    const [tool, model] = auditRows(records(readJsonl(join(FIXTURES, 'claude-agent-acp.wire.jsonl'))));
    expect(tool?.payload).toMatchObject({
      toolName: 'Write',
      input: { file_path: '/workspace/project/hello.txt' },
      outputPreview: 'File created successfully at: /workspace/project/hello.txt',
      approval: { decision: 'allow_always' },
    });
    expect(model?.finish_reason).toBe('end_turn');
    expect(model?.payload).toMatchObject({
      request: { messageCount: 1, promptPreview: expect.stringContaining('Create hello.txt') },
      usage: { inputTokens: 20, outputTokens: 40, costAmount: 0.0006600000000000001, costCurrency: 'USD' },
    });
  });

  it("Codex: the tool's latency is the engine's own figure, not the arrival gap (which includes the approval)", () => {
    const [tool, model] = auditRows(records(readJsonl(join(FIXTURES, 'codex-acp.wire.jsonl'))));
    expect(tool?.latency_ms).toBe(0); // duration {secs: 0, nanos: 15373}
    expect(model?.model).toBe('fake-model');
    // Codex reports only context-window usage (no turn tokens, no cost): no usage is invented.
    expect(model?.payload).not.toHaveProperty('usage');
  });

  it('a cancelled turn: the running tool and the model call end cancelled', () => {
    const rows = auditRows(
      cutBeforeToolEnd('claude-agent-acp.wire.jsonl', [
        { harness: 'turn.cancel_requested' },
        { harness: 'turn.ended', outcome: 'cancelled' },
      ]),
    );
    assertValid(rows);
    expect(rows.map((r) => [r.call_class, r.status])).toEqual([
      ['tool', 'cancelled'],
      ['model', 'cancelled'],
    ]);
    expect(rows[0]?.payload).toMatchObject({ toolCallId: 'toolu_fake_1', error: 'cancelled' });
    expect(rows[1]?.finish_reason).toBe('cancelled');
  });

  it('an engine that dies mid-tool: the tool failed and the model row carries the error', () => {
    const rows = auditRows(
      cutBeforeToolEnd('codex-acp.wire.jsonl', [
        { harness: 'engine.exited', code: 1, signal: null },
        { harness: 'turn.ended', outcome: 'failed', error: 'the engine exited' },
      ]),
    );
    assertValid(rows);
    expect(rows.map((r) => [r.call_class, r.status])).toEqual([
      ['tool', 'error'],
      ['model', 'error'],
    ]);
    expect(rows[1]?.payload).toMatchObject({
      error: expect.stringContaining('the engine process exited'),
    });
  });

  it('a source that simply stops: the end of the source closes the calls, at the last frame time', () => {
    const input = cutBeforeToolEnd('codex-acp.wire.jsonl', []);
    const rows = auditRows(input);
    assertValid(rows);
    expect(rows.map((r) => [r.call_class, r.status])).toEqual([
      ['tool', 'error'],
      ['model', 'error'],
    ]);
    for (const row of rows) expect(row.created_at).toBe(input.at(-1)?.receivedAt);
  });
});
