import type { ApprovalOption, ApprovalOptionKind, ApprovalSubject, JsonObject } from '@agentlane/contract';
import {
  asObject,
  asString,
  compact,
  idEntries,
  idGet,
  idSet,
  isObject,
  listOf,
} from '@agentlane/engine-kit';
import { ownApproval } from './state.js';
import type { Step } from './step.js';
import { diffArtifact, onToolUpdate } from './tools.js';

const OPTION_KINDS: readonly ApprovalOptionKind[] = [
  'allow_once',
  'allow_always',
  'reject_once',
  'reject_always',
];

/**
 * ACP permission requests have no id of their own: the JSON-RPC request id is the only one, unique for the
 * life of the connection (a connection never outlives a run that is waiting on it). Approvals are
 * addressed per run, so the id only needs to be URL-safe and stable.
 */
export function approvalIdFor(requestId: string | number): string {
  return `perm-${String(requestId).replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** session/request_permission → the tool it is about, then approval.requested with its options. */
export function onPermissionRequest(step: Step, requestId: string, params: JsonObject): void {
  const approvalId = approvalIdFor(requestId);
  const toolCall = asObject(params.toolCall);
  const toolCallId = toolCall ? asString(toolCall.toolCallId) : undefined;
  if (toolCall) onToolUpdate(step, toolCall, 'permission');
  const options: ApprovalOption[] = [];
  for (const o of listOf(params.options)) {
    if (!isObject(o)) continue;
    const optionId = asString(o.optionId);
    const kind = asString(o.kind) as ApprovalOptionKind | undefined;
    if (!optionId || !kind || !OPTION_KINDS.includes(kind)) continue;
    options.push({ optionId, label: asString(o.name) ?? optionId, kind });
  }
  step.state.approvals = idSet(step.state.approvals, approvalId, {
    toolCallId: toolCallId ?? null,
    options: options.map((o) => ({ optionId: o.optionId, kind: o.kind })),
    resolved: false,
  });
  const tool = toolCallId ? idGet(step.state.tools, toolCallId) : undefined;
  const title = (toolCall && asString(toolCall.title)) ?? tool?.title ?? 'Permission requested';
  const subject: ApprovalSubject = { kind: 'tool_call' };
  const rawInput = toolCall?.rawInput;
  if (tool?.kind === 'execute') {
    subject.kind = 'command';
    const input = asObject(rawInput);
    const command = input?.command;
    subject.command = Array.isArray(command) ? command.map(String).join(' ') : (asString(command) ?? title);
  } else if (tool && (tool.kind === 'edit' || tool.kind === 'delete' || tool.kind === 'move')) {
    subject.kind = 'file_edit';
    const diff = tool.diffs[0];
    const location = listOf(toolCall?.locations).find(isObject);
    const path = diff?.path ?? (location ? asString(location.path) : undefined);
    if (path) subject.path = path;
    if (diff) subject.diff = diffArtifact(step, diff).withPreview;
  }
  step.emit(`approval.requested:${approvalId}`, {
    kind: 'approval.requested',
    payload: compact({
      approvalId,
      toolCallId,
      title,
      subject,
      input: rawInput,
      options,
    }),
  });
}

/** The answer (from the harness frame or the wire response, whichever comes first) → approval.resolved. */
export function resolveApproval(
  step: Step,
  approvalId: string,
  answer: { outcome: 'selected' | 'cancelled'; optionId?: string; answeredBy?: string },
): void {
  const approval = ownApproval(step.state, approvalId);
  if (approval?.resolved) return;
  if (approval) approval.resolved = true;
  const kind = approval?.options.find((o) => o.optionId === answer.optionId)?.kind as
    | ApprovalOptionKind
    | undefined;
  step.emit(`approval.resolved:${approvalId}`, {
    kind: 'approval.resolved',
    payload: compact({
      approvalId,
      outcome: answer.outcome,
      optionId: answer.outcome === 'selected' ? answer.optionId : undefined,
      decision: answer.outcome === 'selected' ? kind : undefined,
      answeredBy: answer.answeredBy,
      answeredAt: step.receivedAt,
    }),
  });
}

/** The end of a turn answers every approval still pending as cancelled, answered by the system. */
export function cancelOpenApprovals(step: Step): void {
  for (const [id, approval] of idEntries(step.state.approvals)) {
    if (!approval.resolved) resolveApproval(step, id, { outcome: 'cancelled', answeredBy: 'system' });
  }
}
