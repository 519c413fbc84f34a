import type { ResumeEntry } from '@ag-ui/core';
import type { ApprovalRequestedPayload, QuestionRequestedPayload } from '@agentlane/contract';
import { HttpError, type Principal, quote, type ServerContext } from '@agentlane/server';
import type { RunRecord } from '@agentlane/store';

type Asked =
  | { kind: 'approval'; runId: string; payload: ApprovalRequestedPayload }
  | { kind: 'question'; runId: string; payload: QuestionRequestedPayload };

/** What a resume entry's payload may hold: an approval's `{optionId}` or `{approved}`, a question's answer. */
interface ResumePayload {
  optionId?: unknown;
  approved?: unknown;
  choiceIds?: unknown;
  text?: unknown;
}

/** One resume entry with the interrupt it answers. */
interface Answer {
  entry: ResumeEntry;
  payload: ResumePayload;
  /** The entry's place in the body, for errors. */
  field: string;
  answeredBy: string;
}

/** Resume entries → answers through the lane (an identical repeat is a no-op). Returns the run. */
export async function answerResume(
  ctx: ServerContext,
  principal: Principal,
  threadId: string,
  resume: ResumeEntry[],
): Promise<RunRecord | null> {
  const asked = await askedOf(ctx, threadId);
  let runId: string | undefined;
  for (const [i, entry] of resume.entries()) {
    const target = asked.get(entry.interruptId);
    const field = `body.resume[${i}]`;
    if (!target)
      throw new HttpError(
        'invalid_request',
        `no interrupt ${quote(entry.interruptId)} in this thread`,
        `${field}.interruptId`,
      );
    runId ??= target.runId;
    const answer: Answer = {
      entry,
      payload: (entry.payload ?? {}) as ResumePayload,
      field,
      answeredBy: principal.name,
    };
    if (target.kind === 'approval') await answerApproval(ctx, target.runId, target.payload, answer);
    else await answerQuestion(ctx, target.runId, answer);
  }
  return runId ? await ctx.store.getRun(runId) : null;
}

/** The run the resume entries answer (that of the first entry's interrupt), without answering anything. */
export async function resumedRunId(
  ctx: ServerContext,
  threadId: string,
  resume: ResumeEntry[],
): Promise<string | undefined> {
  const first = resume[0];
  return first ? (await askedOf(ctx, threadId)).get(first.interruptId)?.runId : undefined;
}

/** The thread's approvals and questions by interrupt id. */
async function askedOf(ctx: ServerContext, threadId: string): Promise<Map<string, Asked>> {
  const asked = new Map<string, Asked>();
  for (const row of await ctx.store.latestEvents({ threadId })) {
    const e = row.event;
    if (e.kind === 'approval.requested')
      asked.set(e.payload.approvalId, { kind: 'approval', runId: e.runId, payload: e.payload });
    if (e.kind === 'question.requested')
      asked.set(e.payload.questionId, { kind: 'question', runId: e.runId, payload: e.payload });
  }
  return asked;
}

/** `{optionId}` picks that option; `{approved}` the approval's first allow (or reject) option. */
async function answerApproval(
  ctx: ServerContext,
  runId: string,
  asked: ApprovalRequestedPayload,
  { entry, payload, field, answeredBy }: Answer,
): Promise<void> {
  const options = asked.options;
  const chosen =
    typeof payload.optionId === 'string'
      ? options.find((o) => o.optionId === payload.optionId)
      : typeof payload.approved === 'boolean'
        ? (payload.approved ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'])
            .map((kind) => options.find((o) => o.kind === kind))
            .find((o) => o !== undefined)
        : undefined;
  if (entry.status === 'resolved' && !chosen)
    throw new HttpError(
      'invalid_request',
      'payload must be {optionId} of the request or {approved: boolean}',
      `${field}.payload`,
    );
  // Both given: neither may silently win over the other, so an option of the other kind is refused.
  if (entry.status === 'resolved' && chosen && typeof payload.approved === 'boolean') {
    if (payload.approved !== chosen.kind.startsWith('allow'))
      throw new HttpError(
        'invalid_request',
        `optionId ${quote(chosen.optionId)} is a ${chosen.kind} option, which contradicts approved: ${payload.approved}`,
        `${field}.payload.optionId`,
      );
  }
  await ctx.lane.answerApproval({
    runId,
    approvalId: entry.interruptId,
    answer:
      entry.status === 'resolved' && chosen
        ? { outcome: 'selected', optionId: chosen.optionId, answeredBy }
        : { outcome: 'cancelled', answeredBy },
  });
}

async function answerQuestion(
  ctx: ServerContext,
  runId: string,
  { entry, payload, answeredBy }: Answer,
): Promise<void> {
  const choiceIds = Array.isArray(payload.choiceIds)
    ? payload.choiceIds.filter((c): c is string => typeof c === 'string')
    : [];
  const text = typeof payload.text === 'string' ? payload.text : undefined;
  await ctx.lane.answerQuestion({
    runId,
    questionId: entry.interruptId,
    answer:
      entry.status === 'resolved'
        ? { outcome: 'answered', choiceIds, ...(text !== undefined ? { text } : {}), answeredBy }
        : { outcome: 'cancelled', answeredBy },
  });
}
