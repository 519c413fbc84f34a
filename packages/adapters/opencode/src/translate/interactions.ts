import type {
  ApprovalOption,
  ApprovalOptionKind,
  ApprovalSubject,
  JsonObject,
  PlanEntry,
  PlanEntryPriority,
  PlanEntryStatus,
} from '@agentlane/contract';
import { asArray, asBoolean, asObject, asString } from '@agentlane/engine-kit';
import { makeArtifact } from './artifacts.js';
import { relativePath } from './files.js';
import { namespaceOf } from './session-tree.js';
import { entriesOf, entryOf, nextCount, ownEntry, putEntry } from './state.js';
import type { Step } from './step.js';

/** OpenCode's permission replies, offered as the approval's options (the optionId is the reply verbatim). */
export const APPROVAL_OPTIONS: ApprovalOption[] = [
  { optionId: 'once', label: 'Allow once', kind: 'allow_once' },
  { optionId: 'always', label: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject', label: 'Reject', kind: 'reject_once' },
];

export function decisionOf(optionId: string | undefined): ApprovalOptionKind | undefined {
  return APPROVAL_OPTIONS.find((o) => o.optionId === optionId)?.kind;
}

export function onPermissionAsked(out: Step, props: JsonObject): void {
  const id = asString(props.id);
  if (!id) {
    out.warn('opencode.malformed_permission', 'permission.asked without id');
    return;
  }
  if (entryOf(out.state, 'approvals', id)) return;
  putEntry(out.state, 'approvals', id, { resolved: false });
  const permission = asString(props.permission) ?? 'permission';
  const patterns = (asArray(props.patterns) ?? []).map(asString).filter((p): p is string => p !== undefined);
  const metadata = asObject(props.metadata) ?? {};
  const toolCallId = asString(asObject(props.tool)?.callID);
  const subject: ApprovalSubject = { kind: toolCallId ? 'tool_call' : 'other' };
  if (permission === 'bash') {
    subject.kind = 'command';
    const command = asString(metadata.command) ?? patterns[0];
    if (command) subject.command = command;
  } else if (permission === 'edit' || permission === 'write') {
    subject.kind = 'file_edit';
    const file = asString(metadata.filepath) ?? patterns[0];
    if (file) subject.path = relativePath(out, file);
    const diff = asString(metadata.diff);
    if (diff) {
      const artifact = makeArtifact(diff, 'text/x-diff');
      out.addArtifact(artifact.stored);
      subject.diff = artifact.withPreview;
    }
  }
  const shown = patterns.map((p) => relativePath(out, p)).join(', ');
  const payload: {
    approvalId: string;
    title: string;
    subject: ApprovalSubject;
    options: ApprovalOption[];
    toolCallId?: string;
    description?: string;
    input?: JsonObject;
  } = {
    approvalId: id,
    title: shown ? `${permission}: ${shown}` : permission,
    subject,
    options: APPROVAL_OPTIONS,
    input: metadata,
  };
  if (toolCallId) payload.toolCallId = toolCallId;
  if (patterns.length > 0) payload.description = `OpenCode asks for "${permission}" on ${shown}`;
  out.emit(
    `approval.requested:${id}`,
    { kind: 'approval.requested', payload },
    { namespace: namespaceOf(out.state, asString(props.sessionID)) },
  );
}

/** The engine's own report of a reply; skipped when the harness frame already resolved it. */
export function onPermissionReplied(out: Step, props: JsonObject): void {
  const id = asString(props.requestID) ?? asString(props.permissionID);
  const reply = asString(props.reply) ?? asString(props.response);
  if (!id) return;
  resolveApproval(out, id, { outcome: 'selected', optionId: reply }, asString(props.sessionID));
}

export function resolveApproval(
  out: Step,
  id: string,
  answer: {
    outcome: 'selected' | 'cancelled';
    optionId?: string | undefined;
    answeredBy?: string | undefined;
  },
  sessionId?: string,
): void {
  if (entryOf(out.state, 'approvals', id)?.resolved) return;
  putEntry(out.state, 'approvals', id, { resolved: true });
  const payload: {
    approvalId: string;
    outcome: 'selected' | 'cancelled';
    optionId?: string;
    decision?: ApprovalOptionKind;
    answeredBy?: string;
    answeredAt: string;
  } = { approvalId: id, outcome: answer.outcome, answeredAt: out.receivedAt };
  if (answer.outcome === 'selected' && answer.optionId) {
    payload.optionId = answer.optionId;
    const decision = decisionOf(answer.optionId);
    if (decision) payload.decision = decision;
  }
  if (answer.answeredBy) payload.answeredBy = answer.answeredBy;
  out.emit(
    `approval.resolved:${id}`,
    { kind: 'approval.resolved', payload },
    { namespace: namespaceOf(out.state, sessionId) },
  );
}

/**
 * question.asked carries one or more questions. One question keeps the request id; several become one
 * canonical question each, `<requestId>/<index>`, answered together.
 */
export function questionIds(requestId: string, count: number): string[] {
  return count <= 1 ? [requestId] : Array.from({ length: count }, (_, i) => `${requestId}/${i}`);
}

export function onQuestionAsked(out: Step, props: JsonObject): void {
  const id = asString(props.id);
  const questions = asArray(props.questions);
  if (!id || !questions) {
    out.warn('opencode.malformed_question', 'question.asked without id or questions');
    return;
  }
  if (entryOf(out.state, 'questions', id)) return;
  putEntry(out.state, 'questions', id, { count: questions.length, resolved: false });
  const toolCallId = asString(asObject(props.tool)?.callID);
  const ids = questionIds(id, questions.length);
  questions.forEach((q, index) => {
    const info = asObject(q) ?? {};
    const choices = (asArray(info.options) ?? []).flatMap((o) => {
      const option = asObject(o);
      const label = asString(option?.label);
      if (!label) return [];
      const description = asString(option?.description);
      return [description ? { id: label, label, description } : { id: label, label }];
    });
    const payload: {
      questionId: string;
      prompt: string;
      choices: typeof choices;
      multiple: boolean;
      allowFreeText: boolean;
      toolCallId?: string;
    } = {
      questionId: ids[index] ?? id,
      prompt: asString(info.question) ?? asString(info.header) ?? '',
      choices,
      multiple: asBoolean(info.multiple) === true,
      allowFreeText: asBoolean(info.custom) !== false,
    };
    if (toolCallId) payload.toolCallId = toolCallId;
    out.emit(
      `question.requested:${payload.questionId}`,
      { kind: 'question.requested', payload },
      { namespace: namespaceOf(out.state, asString(props.sessionID)) },
    );
  });
}

export function onQuestionReplied(out: Step, props: JsonObject, rejected: boolean): void {
  const id = asString(props.requestID);
  if (!id) return;
  const entry = ownEntry(out.state, 'questions', id);
  if (!entry || entry.resolved) return;
  entry.resolved = true;
  const answers = asArray(props.answers) ?? [];
  questionIds(id, entry.count).forEach((questionId, index) => {
    const labels = (asArray(answers[index]) ?? []).map(asString).filter((a): a is string => a !== undefined);
    out.emit(
      `question.resolved:${questionId}`,
      {
        kind: 'question.resolved',
        payload: rejected
          ? { questionId, outcome: 'declined', answeredAt: out.receivedAt }
          : { questionId, outcome: 'answered', answer: { choiceIds: labels }, answeredAt: out.receivedAt },
      },
      { namespace: namespaceOf(out.state, asString(props.sessionID)) },
    );
  });
}

/** A harness answer for one canonical question (of a request with one or several questions). */
export function resolveQuestionFromHarness(
  out: Step,
  questionId: string,
  answer: {
    outcome: 'answered' | 'declined' | 'cancelled';
    choiceIds?: string[] | undefined;
    text?: string | undefined;
    answeredBy?: string | undefined;
  },
): void {
  const requestId = questionId.split('/')[0] ?? questionId;
  const entry = ownEntry(out.state, 'questions', requestId);
  if (entry) entry.resolved = true;
  const payload: {
    questionId: string;
    outcome: typeof answer.outcome;
    answer?: { choiceIds: string[]; text?: string };
    answeredBy?: string;
    answeredAt: string;
  } = { questionId, outcome: answer.outcome, answeredAt: out.receivedAt };
  if (answer.outcome === 'answered') {
    payload.answer = { choiceIds: answer.choiceIds ?? [] };
    if (answer.text !== undefined) payload.answer.text = answer.text;
  }
  if (answer.answeredBy) payload.answeredBy = answer.answeredBy;
  out.emit(`question.resolved:${questionId}`, { kind: 'question.resolved', payload });
}

const PLAN_STATUS: Record<string, PlanEntryStatus> = {
  pending: 'pending',
  in_progress: 'in_progress',
  completed: 'completed',
  cancelled: 'cancelled',
};
const PLAN_PRIORITY: Record<string, PlanEntryPriority> = { high: 'high', medium: 'medium', low: 'low' };

/** todo.updated is the whole list each time: a full plan.updated. */
export function onTodoUpdated(out: Step, props: JsonObject): void {
  const todos = asArray(props.todos);
  if (!todos) {
    out.warn('opencode.todos_invalid', 'todo.updated whose todos is not an array; read as an empty plan', {
      todos: props.todos ?? null,
    });
  }
  const invalid: number[] = [];
  const entries: PlanEntry[] = (todos ?? []).flatMap((t, index) => {
    const todo = asObject(t);
    const content = asString(todo?.content);
    if (!todo || content === undefined) {
      invalid.push(index);
      return [];
    }
    const status = PLAN_STATUS[asString(todo.status) ?? ''];
    const priority = PLAN_PRIORITY[asString(todo.priority) ?? ''];
    if (!status || (todo.priority !== undefined && !priority)) invalid.push(index);
    const entry: PlanEntry = { content, status: status ?? 'pending' };
    const id = asString(todo.id);
    if (id) entry.id = id;
    if (priority) entry.priority = priority;
    return [entry];
  });
  if (invalid.length > 0) {
    out.warn(
      'opencode.todo_invalid',
      'todos without string content (left out) or with an unknown status (read as pending) or priority',
      { indexes: invalid.slice(0, 20), count: invalid.length },
    );
  }
  out.emit(
    `plan.updated:${nextCount(out.state, 'plan')}`,
    { kind: 'plan.updated', payload: { entries } },
    { namespace: namespaceOf(out.state, asString(props.sessionID)) },
  );
}

/** At the end of a turn or of the source: approvals and questions nobody answered are cancelled by the system. */
export function cancelOpenInteractions(out: Step): void {
  for (const [id, entry] of entriesOf(out.state, 'approvals')) {
    if (!entry.resolved) resolveApproval(out, id, { outcome: 'cancelled', answeredBy: 'system' });
  }
  for (const [id, entry] of entriesOf(out.state, 'questions')) {
    if (entry.resolved) continue;
    for (const questionId of questionIds(id, entry.count)) {
      resolveQuestionFromHarness(out, questionId, { outcome: 'cancelled', answeredBy: 'system' });
    }
  }
}
