import type { AuditableCall } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { filterRows, timelineByTurn, toAuditRow, toCsv, toJsonl } from '../../src/inspectors/audit-rows';

function call(overrides: Partial<AuditableCall>): AuditableCall {
  return {
    record_id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
    audit_record_version: 1,
    session_id: 's',
    turn_id: 't1',
    stage_id: 'model',
    seq_within_turn: 0,
    created_at: '2026-01-01T09:00:01.000Z',
    actor_kind: 'runtime',
    session_auth_method: 'api_key',
    call_class: 'model',
    provider: 'openai',
    model: 'gpt-x',
    transport: 'openai-chat',
    status: 'ok',
    latency_ms: 1000,
    finish_reason: 'stop',
    http_status: 200,
    payload: {
      kind: 'model_call',
      request: { messageCount: 1, toolNames: [] },
      response: { toolCalls: [] },
      usage: { inputTokens: 10, outputTokens: 5, costAmount: 0.5, costCurrency: 'USD' },
    },
    ...overrides,
  };
}

const tool = call({
  record_id: '01JBBBBBBBBBBBBBBBBBBBBBBB',
  call_class: 'tool',
  stage_id: 'tool',
  status: 'error',
  created_at: '2026-01-01T09:00:01.500Z',
  latency_ms: 200,
  payload: {
    kind: 'tool_call',
    toolCallId: 'c1',
    toolName: 'write_file',
    input: {},
    error: 'no, "really"\nno',
  },
});

describe('audit rows', () => {
  it('flattens a model call and a tool call; the start is the end minus the latency', () => {
    expect(toAuditRow(call({}))).toMatchObject({
      callClass: 'model',
      name: 'stop',
      inputTokens: 10,
      outputTokens: 5,
      cost: 0.5,
      startMs: Date.parse('2026-01-01T09:00:00.000Z'),
    });
    expect(toAuditRow(tool)).toMatchObject({
      name: 'write_file',
      inputTokens: null,
      error: 'no, "really"\nno',
    });
  });

  it('filters by class, status and text', () => {
    const rows = [call({}), tool].map(toAuditRow);
    expect(filterRows(rows, { text: '', callClass: 'tool', status: '' }).map((r) => r.name)).toEqual([
      'write_file',
    ]);
    expect(filterRows(rows, { text: '', callClass: '', status: 'ok' })).toHaveLength(1);
    expect(filterRows(rows, { text: 'WRITE', callClass: '', status: '' })).toHaveLength(1);
    expect(filterRows(rows, { text: 'gpt-x', callClass: '', status: '' })).toHaveLength(2);
  });

  it('exports JSONL (the rows as they are) and RFC 4180 CSV', () => {
    const jsonl = toJsonl([call({}), tool]);
    expect(
      jsonl
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).record_id),
    ).toEqual(['01JAAAAAAAAAAAAAAAAAAAAAAA', '01JBBBBBBBBBBBBBBBBBBBBBBB']);
    const csv = toCsv([tool].map(toAuditRow));
    const [header, line] = csv.split('\r\n');
    expect(header?.split(',')).toContain('latencyMs');
    expect(line).toContain('"no, ""really""\nno"');
  });

  it('groups calls per turn with the span they cover', () => {
    const turns = timelineByTurn(
      [tool, call({}), call({ turn_id: 't2', created_at: '2026-01-01T09:00:05.000Z' })].map(toAuditRow),
    );
    expect(turns.map((t) => [t.turnId, t.rows.length, t.endMs - t.startMs])).toEqual([
      ['t1', 2, 1500],
      ['t2', 1, 1000],
    ]);
  });
});
