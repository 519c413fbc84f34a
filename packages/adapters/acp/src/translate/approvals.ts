import type { ApprovalOption, ApprovalOptionKind, ApprovalSubject, JsonObject } from '@agentlane/contract';
import {
  asObject,
  asString,
  compact,
  idDelete,
  idEntries,
  idGet,
  idHas,
  idSet,
  isObject,
  listOf,
} from '@agentlane/engine-kit';
import { permissionProblem } from './permission-check.js';
import { rpcIdOf, rpcKey } from './rpc-key.js';
import { ownApproval } from './state.js';
import type { Step } from './step.js';
import { diffArtifact, onToolUpdate } from './tools.js';

/**
 * ACP permission requests have no id of their own: the JSON-RPC request id is the only one, and approvals are
 * addressed per run. The id must be URL-safe (a path segment of the answer route), stable, and injective
 * over JSON-RPC ids: `1` and `"1"`, or `1.5` and `"1_5"`, are two requests and must never share an approval
 * (one answer would settle both). rpcKey is that encoding; an id sent again while pending is refused
 * (agent-requests.ts), so no two open approvals ever share an id.
 */
export function approvalIdFor(requestId: string | number): string {
  return `perm-${rpcKey(requestId)}`;
}

/**
 * The approval id of a permission request whose JSON-RPC id an earlier request already had (answered by then:
 * one still pending is refused): `<approvalIdFor>~<n>`, the first n ≥ 2 not `taken`. Still injective: a base id
 * has `~` only right after `perm-`, followed by a letter, so `~<digit>` only ever starts a suffix.
 */
export function nextApprovalId(requestId: string | number, taken: (approvalId: string) => boolean): string {
  const base = approvalIdFor(requestId);
  if (!taken(base)) return base;
  let n = 2;
  while (taken(`${base}~${n}`)) n++;
  return `${base}~${n}`;
}

/**
 * The approval id the driver gave a reused request id (its `acp.approval_id` frame, request-ledger.ts): the next
 * request under that id takes it. Its books last the session; a run's state only the run.
 */
export function onApprovalIdFrame(step: Step, id: unknown, approvalId: unknown): void {
  const rpc = rpcIdOf(id);
  if (rpc === undefined || typeof approvalId !== 'string') return;
  step.state.nextApprovalIds = idSet(step.state.nextApprovalIds, rpcKey(rpc), approvalId);
}

/** The approval id of this request: the driver's when it announced one, else derived from this run's. */
function approvalIdOf(step: Step, requestId: string | number): string {
  const state = step.state;
  const key = rpcKey(requestId);
  const announced = idGet(state.nextApprovalIds, key);
  if (announced !== undefined) state.nextApprovalIds = idDelete(state.nextApprovalIds, key);
  const approvalId = announced ?? nextApprovalId(requestId, (a) => idHas(state.approvals, a));
  state.requestApprovals = idSet(state.requestApprovals, key, approvalId);
  return approvalId;
}

/** session/request_permission → the tool it is about, then approval.requested with its options. */
export function onPermissionRequest(step: Step, requestId: string | number, params: JsonObject): void {
  const approvalId = approvalIdOf(step, requestId);
  // A request the driver refuses (or the SDK rejects) offers no approval: nobody could answer it.
  const problem = permissionProblem(params, step.state.nativeSessionId);
  if (problem) {
    step.warn(`acp.${problem.code}`, `${problem.message}; agentlane refused it`, { requestId, params });
    return;
  }
  const toolCall = asObject(params.toolCall);
  // The id the tool has here (a reused toolCallId has a derived one, tools.ts).
  const toolCallId = toolCall ? onToolUpdate(step, toolCall, 'permission') : undefined;
  // permissionProblem checked every option: a string optionId and name, one of the four kinds.
  const options: ApprovalOption[] = listOf(params.options)
    .filter(isObject)
    .map((o) => ({
      optionId: String(o.optionId),
      label: String(o.name),
      kind: String(o.kind) as ApprovalOptionKind,
    }));
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

/**
 * The client's answer to a permission request. A JSON-RPC error instead of an outcome means the request was
 * refused after it was offered (a check only the SDK makes): the approval ends cancelled by the system,
 * and a warning says so, since the user was asked something that could never be answered.
 */
export function onPermissionAnswer(step: Step, requestId: string | number, msg: JsonObject): void {
  const state = step.state;
  const key = rpcKey(requestId);
  const given = idGet(state.requestApprovals, key);
  // A request offered no approval (answered cancelled unasked, or late: late-frames.ts) resolves none, not
  // even an earlier one under the same id. Only states made before requestApprovals existed derive the id.
  if (given === undefined && state.requestApprovals !== undefined) return;
  const approvalId = given ?? approvalIdFor(requestId);
  state.requestApprovals = idDelete(state.requestApprovals, key);
  const approval = idGet(state.approvals, approvalId);
  // Refused when it came (permission-check.ts): no approval was offered, the warning was given then.
  if (!approval) return;
  const error = asObject(msg.error);
  if (error) {
    if (approval.resolved) return;
    step.warn(
      'acp.permission_refused',
      `agentlane refused the permission request ${approvalId}: ${asString(error.message) ?? 'unknown error'}`,
      { requestId, error },
    );
    resolveApproval(step, approvalId, { outcome: 'cancelled', answeredBy: 'system' });
    return;
  }
  const outcome = asObject(asObject(msg.result)?.outcome);
  const selected = outcome?.outcome === 'selected';
  resolveApproval(
    step,
    approvalId,
    compact({
      outcome: selected ? 'selected' : 'cancelled',
      optionId: selected ? asString(outcome?.optionId) : undefined,
    }),
  );
}

/** The end of a turn answers every approval still pending as cancelled, answered by the system. */
export function cancelOpenApprovals(step: Step): void {
  for (const [id, approval] of idEntries(step.state.approvals)) {
    if (!approval.resolved) resolveApproval(step, id, { outcome: 'cancelled', answeredBy: 'system' });
  }
}
