import type { JsonValue } from './json.js';

/** The current AuditableCall row shape version. Bumps are the only sanctioned way to change the row. */
export const AUDIT_RECORD_VERSION = 1 as const;

/** Every version of the row shape that has existed, with what changed; part of the public API. */
export const AUDIT_RECORD_VERSION_HISTORY = [
  {
    version: 1,
    summary:
      'Initial row: idempotency key (session_id, turn_id, stage_id, seq_within_turn), payload keyed on kind.',
  },
] as const;

export type AuditActorKind = 'runtime' | 'engine' | 'plugin' | 'user';
export type AuditCallClass = 'model' | 'tool';
export type AuditStatus = 'ok' | 'error' | 'cancelled';
/** How the session authenticated to the provider; never the credential itself. */
export type AuditAuthMethod = 'api_key' | 'oauth' | 'engine_managed' | 'none';

export interface ModelCallPayload {
  kind: 'model_call';
  /** Number of messages sent, and the last user text (bounded), so an auditor sees what was asked. */
  request: { messageCount: number; toolNames: string[]; promptPreview?: string };
  response: { textPreview?: string; toolCalls: { toolCallId: string; toolName: string }[] };
  usage?: {
    inputTokens?: number;
    outputTokens?: number;
    reasoningTokens?: number;
    cachedInputTokens?: number;
    costAmount?: number;
    costCurrency?: string;
  };
  error?: string;
}

export interface ToolCallPayload {
  kind: 'tool_call';
  toolCallId: string;
  toolName: string;
  input: JsonValue;
  outputPreview?: string;
  error?: string;
  approval?: { decision: string; answeredBy?: string };
}

export type AuditPayload = ModelCallPayload | ToolCallPayload;

/** One row of harness_auditable_calls: one model or tool call. Columns exactly as the contract names them. */
export interface AuditableCall {
  /** ULID, Crockford Base-32, 26 characters. */
  record_id: string;
  audit_record_version: number;
  session_id: string;
  turn_id: string;
  stage_id: string;
  seq_within_turn: number;
  /** ISO 8601. */
  created_at: string;
  actor_kind: AuditActorKind;
  session_auth_method: AuditAuthMethod;
  call_class: AuditCallClass;
  provider: string;
  model: string | null;
  /** The wire the call went over, e.g. an HTTP API name or an engine protocol. */
  transport: string;
  status: AuditStatus;
  latency_ms: number;
  finish_reason: string | null;
  http_status: number | null;
  payload: AuditPayload;
}
