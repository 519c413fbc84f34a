import type { AuditableCall } from '@agentlane/contract';

let n = 0;
/** A valid row; record ids are ULID-shaped and unique per call. */
export function row(over: Partial<AuditableCall> = {}): AuditableCall {
  n++;
  return {
    record_id: `01J${String(n).padStart(23, '0')}`,
    audit_record_version: 1,
    session_id: 'thr_1',
    turn_id: 'run_1',
    stage_id: 'tool-loop',
    seq_within_turn: n,
    created_at: '2026-01-01T00:00:00.000Z',
    actor_kind: 'runtime',
    session_auth_method: 'api_key',
    call_class: 'model',
    provider: 'builtin',
    model: 'fake-model',
    transport: 'openai-chat',
    status: 'ok',
    latency_ms: 12,
    finish_reason: 'stop',
    http_status: 200,
    payload: { kind: 'model_call', request: { messageCount: 1, toolNames: [] }, response: { toolCalls: [] } },
    ...over,
  };
}
