import type { ApprovalOptionKind, ApprovalResolvedPayload, CanonicalEventOf } from '@agentlane/contract';
import { HttpError, type Principal, quote, type ServerContext } from '@agentlane/server';
import { StoreError } from '@agentlane/store';
import type { ChatRequest } from './chat-request.js';

const PREFERENCE: Record<'approve' | 'deny', ApprovalOptionKind[]> = {
  approve: ['allow_once', 'allow_always'],
  deny: ['reject_once', 'reject_always'],
};

type Approvals = Extract<ChatRequest, { kind: 'continue' }>['approvals'];

/** A resolution as useChat's yes/no: only a chosen allow option is a yes (a cancel is a no). */
const approvedBy = (p: ApprovalResolvedPayload): boolean =>
  p.outcome === 'selected' && p.decision?.startsWith('allow') === true;

/**
 * useChat's yes/no → the approval's own option of that kind (the first allow or reject option), for the
 * approvals of a run that is still active. An answer that contradicts how the approval was already resolved
 * (by another client, a policy, the timeout; also once the run ended) is refused with 409 naming the answer,
 * as the approval route refuses it: the client would otherwise show an outcome that did not happen. The same
 * answer again (useChat re-posting the message) is accepted and changes nothing.
 */
export async function answerApprovals(
  ctx: ServerContext,
  principal: Principal,
  run: { runId: string; threadId: string; active: boolean },
  approvals: Approvals,
): Promise<void> {
  if (approvals.length === 0) return;
  const { runId, threadId } = run;
  const { asked, resolved } = await approvalsOf(ctx, run);
  for (const answer of approvals) {
    const done = resolved.get(answer.approvalId);
    if (done) {
      if (approvedBy(done) !== answer.approved) throw alreadyResolved(answer, done);
      continue;
    }
    const request = asked.get(answer.approvalId);
    if (!request || !run.active) continue;
    const kinds = PREFERENCE[answer.approved ? 'approve' : 'deny'];
    const option = kinds
      .map((kind) => request.payload.options.find((o) => o.kind === kind))
      .find((o) => o !== undefined);
    try {
      await ctx.lane.answerApproval({
        runId,
        approvalId: answer.approvalId,
        answer: option
          ? { outcome: 'selected', optionId: option.optionId, answeredBy: principal.name }
          : { outcome: 'cancelled', answeredBy: principal.name },
        unlessResolved: true,
      });
    } catch (err) {
      if (!(err instanceof StoreError) || err.code !== 'conflict') throw err;
      if (err.detail !== 'already_resolved' && err.detail !== 'answered_differently') throw err;
      // Resolved (or answered) in between: the same answer is fine, another one is the conflict above.
      const now = (await approvalsOf(ctx, { runId, threadId })).resolved.get(answer.approvalId);
      if (!now || approvedBy(now) !== answer.approved) throw alreadyResolved(answer, now);
    }
  }
}

/** The run's approval requests and resolutions by approval id (latest revisions). */
async function approvalsOf(ctx: ServerContext, run: { runId: string; threadId: string }) {
  const asked = new Map<string, CanonicalEventOf<'approval.requested'>>();
  const resolved = new Map<string, ApprovalResolvedPayload>();
  for (const { event } of await ctx.store.latestEvents({ threadId: run.threadId, runId: run.runId })) {
    if (event.kind === 'approval.requested') asked.set(event.payload.approvalId, event);
    else if (event.kind === 'approval.resolved') resolved.set(event.payload.approvalId, event.payload);
  }
  return { asked, resolved };
}

/** The approval route's refusal of the same conflict, naming where the answer is in the body. */
function alreadyResolved(answer: Approvals[number], done: ApprovalResolvedPayload | undefined): HttpError {
  const parts = done
    ? [done.outcome, done.optionId && quote(done.optionId), done.answeredBy && `by ${quote(done.answeredBy)}`]
    : [];
  const how = done ? ` (${parts.filter(Boolean).join(' ')})` : ' differently';
  return new HttpError(
    'conflict',
    `approval ${quote(answer.approvalId)} is already resolved${how}; only a repeat of the answer that resolved it is accepted`,
    answer.field,
  );
}
