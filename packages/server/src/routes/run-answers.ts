import type { ApprovalResolvedPayload, QuestionResolvedPayload } from '@agentlane/contract';
import { StoreError } from '@agentlane/store';
import type { ServerContext } from '../context.js';
import { HttpError, quote } from '../errors.js';
import {
  AcceptedReply,
  ApprovalBody,
  ApprovalParams,
  ErrorSchema,
  errorResponse,
  QuestionBody,
  QuestionParams,
} from '../schemas.js';
import type { RouteApp } from './route-app.js';
import { loadOpenRun } from './run-access.js';

type Kind = 'approval' | 'question';

const REQUEST = {
  approval: { asked: 'approval.requested', resolved: 'approval.resolved', id: 'approvalId' },
  question: { asked: 'question.requested', resolved: 'question.resolved', id: 'questionId' },
} as const;

/** What both answer routes document: who wins, and when an answer is refused. */
const ANSWER_RULES =
  'The first answer recorded wins; the same answer again (compared as canonical JSON: key order and ' +
  'whitespace do not count) gets 202 again and changes nothing. 409 naming the path id when the request is ' +
  'already resolved (by the engine itself, by the approval timeout, or by a different answer); 409 naming ' +
  '`params.id` when the run has ended or is not executing.';

const answerResponses = (what: Kind) => ({
  202: AcceptedReply,
  400: ErrorSchema,
  404: errorResponse(`No such run, or the run asked no such ${what}.`),
  409: errorResponse(
    `The ${what} already has a different answer or is already resolved (by the engine itself or the approval ` +
      `timeout): field \`params.${REQUEST[what].id}\`; or the run has ended or is not executing: field \`params.id\`.`,
  ),
});

/** POST /runs/:id/approvals/:approvalId and /runs/:id/questions/:questionId: answers for a running run. */
export function answerRoutes(app: RouteApp, ctx: ServerContext): void {
  const { lane } = ctx;
  app.post(
    '/runs/:id/approvals/:approvalId',
    {
      schema: {
        summary: 'Answer an approval request; reaches the engine and emits approval.resolved',
        description: ANSWER_RULES,
        params: ApprovalParams,
        body: ApprovalBody,
        response: answerResponses('approval'),
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
      const asked = events.find('approval', 'asked', approvalId);
      if (!asked) throw notAsked('approval', approvalId);
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
      await answerOnce(ctx, run, events, { kind: 'approval', id: approvalId }, () =>
        lane.answerApproval({ runId: run.runId, approvalId, answer, unlessResolved: true }),
      );
      reply.code(202);
      return { accepted: true };
    },
  );

  app.post(
    '/runs/:id/questions/:questionId',
    {
      schema: {
        summary: 'Answer a question; reaches the engine and emits question.resolved',
        description: ANSWER_RULES,
        params: QuestionParams,
        body: QuestionBody,
        response: answerResponses('question'),
      },
    },
    async (request, reply) => {
      const { questionId } = request.params;
      const run = await loadOpenRun(ctx, request.principal, request.params.id);
      const events = await runEvents(ctx, run);
      if (!events.find('question', 'asked', questionId)) throw notAsked('question', questionId);
      const { outcome, choiceIds, text } = request.body;
      const answer = {
        outcome,
        ...(choiceIds !== undefined ? { choiceIds } : {}),
        ...(text !== undefined ? { text } : {}),
        answeredBy: request.principal.name,
      };
      await answerOnce(ctx, run, events, { kind: 'question', id: questionId }, () =>
        lane.answerQuestion({ runId: run.runId, questionId, answer, unlessResolved: true }),
      );
      reply.code(202);
      return { accepted: true };
    },
  );
}

type RunEvents = Awaited<ReturnType<typeof runEvents>>;

/** The latest revision of each of the run's events, searched for a request or its resolution by id. */
async function runEvents(ctx: ServerContext, run: { threadId: string; runId: string }) {
  const rows = await ctx.store.latestEvents({ threadId: run.threadId, runId: run.runId });
  return {
    /** The payload of the run's request of this kind with this id (`asked`), or of its resolution. */
    find(kind: Kind, which: 'asked' | 'resolved', id: string): object | undefined {
      const { [which]: eventKind, id: field } = REQUEST[kind];
      return rows.find(
        (r) =>
          r.event.kind === eventKind && (r.event.payload as unknown as Record<string, unknown>)[field] === id,
      )?.event.payload;
    },
  };
}

/**
 * Hands a client's answer to the lane, which checks that a live process executes the run (before anything is
 * recorded: an answer nobody can deliver is refused, 409 naming `params.id`), then records it and wakes the
 * waiting turn. The store checks and records in one transaction against the engine's own resolution
 * (`unlessResolved`): of the two exactly one comes first, and an answer that comes second is refused here. The
 * first answer to a request wins: the same answer again is the recorded one (canonical JSON), so a retry gets
 * what the first attempt got.
 */
async function answerOnce(
  ctx: ServerContext,
  run: { threadId: string; runId: string },
  events: RunEvents,
  request: { kind: Kind; id: string },
  deliver: () => Promise<unknown>,
): Promise<void> {
  const { kind, id } = request;
  try {
    await deliver();
  } catch (err) {
    if (!(err instanceof StoreError) || err.code !== 'conflict') throw err;
    const detail = err.detail;
    if (detail !== 'already_resolved' && detail !== 'answered_differently')
      throw new HttpError('conflict', err.message, 'params.id');
    // How it was resolved, when the stream says (read again: the resolution may be newer than the first read).
    const resolved =
      events.find(kind, 'resolved', id) ?? (await runEvents(ctx, run)).find(kind, 'resolved', id);
    if (resolved || detail === 'already_resolved') throw alreadyResolved(kind, id, resolved);
    throw new HttpError(
      'conflict',
      `${kind} ${quote(id)} was already answered differently; only its first answer counts`,
      fieldOf(kind),
    );
  }
}

const fieldOf = (kind: Kind) => `params.${REQUEST[kind].id}`;

/** How a request was resolved, for the refusal: outcome, choice, who. A free-text answer is not echoed. */
function howResolved(kind: Kind, resolved: object): string {
  const { outcome, answeredBy } = resolved as { outcome?: string; answeredBy?: string };
  let picked: string[];
  if (kind === 'approval') {
    const { optionId } = resolved as Partial<ApprovalResolvedPayload>;
    picked = [outcome === 'selected' && optionId !== undefined ? quote(optionId) : ''];
  } else {
    const { answer } = resolved as Partial<QuestionResolvedPayload>;
    const choices = (answer?.choiceIds ?? []).map((c) => quote(c)).join(', ');
    picked = [choices, answer?.text !== undefined ? 'with text' : ''];
  }
  return [outcome, ...picked, answeredBy !== undefined ? `by ${quote(answeredBy)}` : '']
    .filter((part) => part !== undefined && part !== '')
    .join(' ');
}

function alreadyResolved(kind: Kind, id: string, resolved: object | undefined): HttpError {
  const how = resolved ? ` (${howResolved(kind, resolved)})` : '';
  return new HttpError(
    'conflict',
    `${kind} ${quote(id)} is already resolved${how}; only a repeat of the answer that resolved it is accepted`,
    fieldOf(kind),
  );
}

function notAsked(kind: Kind, id: string): HttpError {
  return new HttpError('not_found', `this run asked no ${kind} ${quote(id)}`, fieldOf(kind));
}
