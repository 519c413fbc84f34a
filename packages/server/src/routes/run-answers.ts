import type { ApprovalResolvedPayload } from '@agentlane/contract';
import { StoreError } from '@agentlane/store';
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
      const { approvalId } = request.params;
      if (outcome === 'selected' && optionId === undefined) {
        throw new HttpError(
          'invalid_request',
          'optionId is required when outcome is "selected"',
          'body.optionId',
        );
      }
      const run = await loadOpenRun(ctx, request.principal, request.params.id);
      const events = await runEvents(ctx, run);
      const asked = events.find('approval.requested', 'approvalId', approvalId);
      if (!asked) throw notAsked('approval', approvalId, 'params.approvalId');
      const offered = (asked as { options?: { optionId: string }[] }).options ?? [];
      if (optionId !== undefined && !offered.some((o) => o.optionId === optionId))
        throw new HttpError(
          'invalid_request',
          `optionId ${quote(optionId)} is not one this approval offered (${offered.map((o) => o.optionId).join(', ')})`,
          'body.optionId',
        );
      const answer = {
        outcome,
        ...(optionId !== undefined ? { optionId } : {}),
        answeredBy: request.principal.name,
      };
      // Already resolved (by an answer, by the engine itself, by the approval timeout): a new answer would
      // reach nothing. Only a repeat of the answer that resolved it is accepted again, and changes nothing.
      const resolved = events.find('approval.resolved', 'approvalId', approvalId) as
        | ApprovalResolvedPayload
        | undefined;
      if (resolved) {
        if (!sameApproval(resolved, answer)) throw alreadyResolved(approvalId, resolved);
      } else {
        await firstAnswer('approval', approvalId, 'params.approvalId', () =>
          lane.answerApproval({ runId: run.runId, approvalId, answer }),
        );
      }
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
      const { questionId } = request.params;
      const run = await loadOpenRun(ctx, request.principal, request.params.id);
      if (!(await runEvents(ctx, run)).find('question.requested', 'questionId', questionId))
        throw notAsked('question', questionId, 'params.questionId');
      const { outcome, choiceIds, text } = request.body;
      await firstAnswer('question', questionId, 'params.questionId', () =>
        lane.answerQuestion({
          runId: run.runId,
          questionId,
          answer: {
            outcome,
            ...(choiceIds !== undefined ? { choiceIds } : {}),
            ...(text !== undefined ? { text } : {}),
            answeredBy: request.principal.name,
          },
        }),
      );
      reply.code(202);
      return { accepted: true };
    },
  );
}

/** The latest revision of each of the run's events, searched for a request or its resolution by id. */
async function runEvents(ctx: ServerContext, run: { threadId: string; runId: string }) {
  const rows = await ctx.store.latestEvents({ threadId: run.threadId, runId: run.runId });
  return {
    /** The payload of the run's event of this kind whose `field` is `id`, if it has one. */
    find(kind: string, field: 'approvalId' | 'questionId', id: string): object | undefined {
      return rows.find(
        (r) => r.event.kind === kind && (r.event.payload as unknown as Record<string, unknown>)[field] === id,
      )?.event.payload;
    },
  };
}

/** The answer that resolved an approval, sent again by whoever sent it (an option only counts when selected). */
function sameApproval(
  resolved: ApprovalResolvedPayload,
  answer: { outcome: string; optionId?: string; answeredBy: string },
): boolean {
  return (
    resolved.outcome === answer.outcome &&
    (answer.outcome !== 'selected' || resolved.optionId === answer.optionId) &&
    resolved.answeredBy === answer.answeredBy
  );
}

function alreadyResolved(approvalId: string, resolved: ApprovalResolvedPayload): HttpError {
  const how = [
    resolved.outcome,
    ...(resolved.outcome === 'selected' && resolved.optionId !== undefined ? [quote(resolved.optionId)] : []),
    ...(resolved.answeredBy !== undefined ? [`by ${quote(resolved.answeredBy)}`] : []),
  ].join(' ');
  return new HttpError(
    'conflict',
    `approval ${quote(approvalId)} is already resolved (${how}); only a repeat of the answer that resolved it is accepted`,
    'params.approvalId',
  );
}

/**
 * Records an answer through the lane. The first answer to a request wins: the lane refuses a different one
 * with the store's conflict, named here by the request's id (the answer that counts is on the thread's stream
 * as soon as it is delivered). Any other conflict of the lane's is about the run (not executing anywhere).
 */
async function firstAnswer(
  what: 'approval' | 'question',
  id: string,
  field: string,
  record: () => Promise<unknown>,
): Promise<void> {
  try {
    await record();
  } catch (err) {
    if (!(err instanceof StoreError) || err.code !== 'conflict') throw err;
    // A second, different answer (the store's `recordAnswer` says so in `detail`).
    if (err.detail === 'answered_differently')
      throw new HttpError(
        'conflict',
        `${what} ${quote(id)} was already answered differently; only its first answer counts`,
        field,
      );
    throw new HttpError('conflict', err.message, 'params.id');
  }
}

function notAsked(what: string, id: string, field: string): HttpError {
  return new HttpError('not_found', `this run asked no ${what} ${quote(id)}`, field);
}
