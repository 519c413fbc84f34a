import type { ServerContext } from '../context.js';
import { HttpError, quote } from '../errors.js';
import {
  AcceptedReply,
  ApprovalBody,
  ApprovalParams,
  ErrorSchema,
  QuestionBody,
  QuestionParams,
} from '../schemas.js';
import type { RouteApp } from './route-app.js';
import { loadOpenRun } from './run-access.js';

/** POST /runs/:id/approvals/:approvalId and /runs/:id/questions/:questionId: answers for a running run. */
export function answerRoutes(app: RouteApp, ctx: ServerContext): void {
  const { lane } = ctx;
  app.post(
    '/runs/:id/approvals/:approvalId',
    {
      schema: {
        summary: 'Answer an approval request; reaches the engine and emits approval.resolved',
        params: ApprovalParams,
        body: ApprovalBody,
        response: { 202: AcceptedReply, 400: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema },
      },
    },
    async (request, reply) => {
      const { outcome, optionId } = request.body;
      if (outcome === 'selected' && optionId === undefined) {
        throw new HttpError(
          'invalid_request',
          'optionId is required when outcome is "selected"',
          'body.optionId',
        );
      }
      const run = await loadOpenRun(ctx, request.principal, request.params.id);
      const asked = await requestOf(ctx, run, 'approval.requested', request.params.approvalId);
      if (!asked) throw notAsked('approval', request.params.approvalId, 'params.approvalId');
      const offered = (asked as { options?: { optionId: string }[] }).options ?? [];
      if (optionId !== undefined && !offered.some((o) => o.optionId === optionId))
        throw new HttpError(
          'invalid_request',
          `optionId ${quote(optionId)} is not one this approval offered (${offered.map((o) => o.optionId).join(', ')})`,
          'body.optionId',
        );
      await lane.answerApproval({
        runId: run.runId,
        approvalId: request.params.approvalId,
        answer: {
          outcome,
          ...(optionId !== undefined ? { optionId } : {}),
          answeredBy: request.principal.name,
        },
      });
      reply.code(202);
      return { accepted: true };
    },
  );

  app.post(
    '/runs/:id/questions/:questionId',
    {
      schema: {
        summary: 'Answer a question; reaches the engine and emits question.resolved',
        params: QuestionParams,
        body: QuestionBody,
        response: { 202: AcceptedReply, 400: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema },
      },
    },
    async (request, reply) => {
      const run = await loadOpenRun(ctx, request.principal, request.params.id);
      if (!(await requestOf(ctx, run, 'question.requested', request.params.questionId)))
        throw notAsked('question', request.params.questionId, 'params.questionId');
      const { outcome, choiceIds, text } = request.body;
      await lane.answerQuestion({
        runId: run.runId,
        questionId: request.params.questionId,
        answer: {
          outcome,
          ...(choiceIds !== undefined ? { choiceIds } : {}),
          ...(text !== undefined ? { text } : {}),
          answeredBy: request.principal.name,
        },
      });
      reply.code(202);
      return { accepted: true };
    },
  );
}

/** The payload of the run's request with this id (approval or question), if the run asked it. */
async function requestOf(
  ctx: ServerContext,
  run: { threadId: string; runId: string },
  kind: 'approval.requested' | 'question.requested',
  id: string,
): Promise<object | undefined> {
  const rows = await ctx.store.latestEvents({ threadId: run.threadId, runId: run.runId });
  const field = kind === 'approval.requested' ? 'approvalId' : 'questionId';
  return rows.find(
    (r) => r.event.kind === kind && (r.event.payload as unknown as Record<string, unknown>)[field] === id,
  )?.event.payload;
}

function notAsked(what: string, id: string, field: string): HttpError {
  return new HttpError('not_found', `this run asked no ${what} ${quote(id)}`, field);
}
