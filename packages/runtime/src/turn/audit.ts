import {
  AUDIT_RECORD_VERSION,
  type AuditableCall,
  type AuditPayload,
  type AuditStatus,
  type StageId,
} from '@agentlane/contract';
import { authMethodOf } from '../model.js';
import type { TurnContext } from './context.js';

/** How much of a prompt, an answer or a tool's output a ledger row keeps. */
export const PREVIEW = 200;

/** One ledger row of the turn (a model or a tool call), emitted as an `audit` frame. */
export function audit(
  ctx: TurnContext,
  stage: StageId,
  callClass: 'model' | 'tool',
  status: AuditStatus,
  latency: number,
  payload: AuditPayload,
  extra: { finish_reason?: string | null; http_status?: number | null } = {},
): void {
  const { deps, settings } = ctx;
  ctx.seq += 1;
  const row: AuditableCall = {
    record_id: deps.ids(),
    audit_record_version: AUDIT_RECORD_VERSION,
    session_id: deps.threadId,
    turn_id: ctx.turn.turnId,
    stage_id: stage,
    seq_within_turn: ctx.seq,
    created_at: deps.clock(),
    actor_kind: 'runtime',
    session_auth_method: callClass === 'model' ? authMethodOf(settings) : 'none',
    call_class: callClass,
    provider: callClass === 'model' ? settings.api : 'builtin',
    model: callClass === 'model' ? settings.model : null,
    transport: callClass === 'model' ? settings.api : 'in-process',
    status,
    latency_ms: Math.max(0, Math.round(latency)),
    finish_reason: extra.finish_reason ?? null,
    http_status: extra.http_status ?? null,
    payload,
  };
  ctx.emit({ rt: 'audit', row });
}
