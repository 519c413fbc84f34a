import type { ApprovalOptionKind, CanonicalEventOf } from '@agentlane/contract';
import type { Principal, ServerContext } from '@agentlane/server';
import type { ChatRequest } from './chat-request.js';

const PREFERENCE: Record<'approve' | 'deny', ApprovalOptionKind[]> = {
  approve: ['allow_once', 'allow_always'],
  deny: ['reject_once', 'reject_always'],
};

/** useChat's yes/no → the approval's own option of that kind (the first allow or reject option). */
export async function answerApprovals(
  ctx: ServerContext,
  principal: Principal,
  run: { runId: string; threadId: string },
  approvals: Extract<ChatRequest, { kind: 'continue' }>['approvals'],
): Promise<void> {
  if (approvals.length === 0) return;
  const { runId, threadId } = run;
  const asked = new Map<string, CanonicalEventOf<'approval.requested'>>();
  for (const row of await ctx.store.latestEvents({ threadId, runId })) {
    if (row.event.kind === 'approval.requested') asked.set(row.event.payload.approvalId, row.event);
  }
  for (const answer of approvals) {
    const request = asked.get(answer.approvalId);
    if (!request) continue;
    const kinds = PREFERENCE[answer.approved ? 'approve' : 'deny'];
    const option = kinds
      .map((kind) => request.payload.options.find((o) => o.kind === kind))
      .find((o) => o !== undefined);
    await ctx.lane.answerApproval({
      runId,
      approvalId: answer.approvalId,
      answer: option
        ? { outcome: 'selected', optionId: option.optionId, answeredBy: principal.name }
        : { outcome: 'cancelled', answeredBy: principal.name },
    });
  }
}
