import type { ServerContext } from '../context.js';
import { HttpError } from '../errors.js';
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
