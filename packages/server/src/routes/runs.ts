import type { StreamEvent } from '@agentlane/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { Principal } from '../auth.js';
import { assertThreadAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import {
  AcceptedReply,
  ApprovalBody,
  ApprovalParams,
  CreateRunBody,
  ErrorSchema,
  IdempotencyHeaders,
  QuestionBody,
  QuestionParams,
  RunParams,
  RunReply,
  ThreadParams,
} from '../schemas.js';
import { openThreadStream } from '../sse/open-stream.js';
import { runView } from './session-view.js';

function runOfEvent(event: StreamEvent): string | undefined {
  if ('event' in event) return event.event.runId;
  if (event.type === 'run.status' || event.type === 'run.canonicalized') return event.runId;
  return undefined;
}

/** Idempotency keys live per token: one tenant can neither learn nor squat another's keys. */
const scopedKey = (principal: Principal, key: string | undefined): string | null =>
  key === undefined ? null : `${principal.key}:${key}`;

export const runRoutes =
  (ctx: ServerContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    const { store, lane } = ctx;

    const createRun = async (
      principal: Principal,
      threadId: string,
      body: Static<typeof CreateRunBody>,
      idempotencyKey: string | undefined,
    ) => {
      if (!(await store.getThread(threadId))) throw notFound('thread', threadId);
      await ctx.runSlots.check(principal.key);
      if (body.parentRunId !== undefined) {
        const parent = await store.getRun(body.parentRunId);
        if (!parent || parent.threadId !== threadId) {
          throw new HttpError(
            'invalid_request',
            `parentRunId ${body.parentRunId} is not a run of this thread`,
            'body.parentRunId',
          );
        }
      }
      const options: Record<string, string> = {};
      if (body.model !== undefined) options.model = body.model;
      if (body.mode !== undefined) options.mode = body.mode;
      const result = await lane.createRun({
        threadId,
        prompt: body.prompt,
        parentRunId: body.parentRunId ?? null,
        options,
        idempotencyKey: scopedKey(principal, idempotencyKey),
        expectedGeneration: body.expectedGeneration,
      });
      if (result.created) ctx.runSlots.add(principal.key, result.run.runId);
      return result;
    };

    const loadRun = async (principal: Principal, runId: string) => {
      const run = await store.getRun(runId);
      if (!run) throw notFound('run', runId);
      assertThreadAccess(principal, run.threadId);
      return run;
    };

    /** An answer to a settled run could reach no engine: refused instead of accepted and dropped. */
    const loadOpenRun = async (principal: Principal, runId: string) => {
      const run = await loadRun(principal, runId);
      if (run.status === 'completed' || run.status === 'failed') {
        throw new HttpError(
          'conflict',
          `run ${runId} has ended (${run.outcome ?? run.status}); its requests can no longer be answered`,
          'params.id',
        );
      }
      return run;
    };

    app.post(
      '/threads/:id/runs',
      {
        schema: {
          summary: 'run.create (a reply carries parentRunId); retry-safe with an Idempotency-Key header',
          params: ThreadParams,
          headers: IdempotencyHeaders,
          body: CreateRunBody,
          response: { 200: RunReply, 201: RunReply, 400: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema },
        },
      },
      async (request, reply) => {
        assertThreadAccess(request.principal, request.params.id);
        const { run, created } = await createRun(
          request.principal,
          request.params.id,
          request.body,
          request.headers['idempotency-key'],
        );
        reply.code(created ? 201 : 200);
        return { run: runView(run), created };
      },
    );

    app.post(
      '/sessions/:id/execute',
      {
        schema: {
          summary:
            'Create a run and stream its StreamEvents (SSE) until it settles, ending with run.canonicalized',
          params: ThreadParams,
          headers: IdempotencyHeaders,
          body: CreateRunBody,
          response: { 400: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema },
        },
      },
      async (request, reply) => {
        const threadId = request.params.id;
        assertThreadAccess(request.principal, threadId);
        // Everything after the head at creation time: the run's rows cannot precede it.
        const after = await store.headDeliverySeq(threadId);
        // The stream cap is checked before the run exists, so a refused stream leaves no run behind.
        ctx.streamSlots.acquire(request.principal.key)();
        const { run, created } = await createRun(
          request.principal,
          threadId,
          request.body,
          request.headers['idempotency-key'],
        );
        const isOurs = (e: StreamEvent) => e.type === 'stream.opened' || runOfEvent(e) === run.runId;
        let done = false;
        const finish = (): void => {
          done = true;
          // Let the completion frame be written before ending; it is the last frame of the stream.
          setImmediate(() => conn.close('run_settled', 0));
        };
        const { conn, subscription } = await openThreadStream(ctx, reply, threadId, created ? after : 0, {
          filter: isOurs,
          onSent: (e) => {
            if (e.type === 'run.canonicalized' && !done) finish();
          },
        });
        if (!subscription || done || conn.closed) return;
        // Settled before the subscription opened: its completion signal was live-only, so repeat it once the
        // replay has delivered the run's rows.
        const completion = await store.getCompletion(run.runId);
        if (!completion) return;
        while (!done && !conn.closed && subscription.cursor < completion.lastDeliverySeq) {
          await new Promise((r) => setTimeout(r, 10));
        }
        if (done || conn.closed) return;
        const settled = await store.getRun(run.runId);
        conn.send({
          type: 'run.canonicalized',
          threadId,
          runId: run.runId,
          status: settled?.status ?? 'completed',
          lastDeliverySeq: completion.lastDeliverySeq,
          completedAt: completion.completedAt,
        });
        finish();
      },
    );

    app.get(
      '/runs/:id',
      {
        schema: { summary: 'Read a run', params: RunParams, response: { 200: RunReply, 404: ErrorSchema } },
      },
      async (request) => ({ run: runView(await loadRun(request.principal, request.params.id)) }),
    );

    app.post(
      '/runs/:id/cancel',
      {
        schema: {
          summary: 'run.cancel (durable: the process owning the run acts on it)',
          params: RunParams,
          headers: IdempotencyHeaders,
          response: { 202: RunReply, 404: ErrorSchema },
        },
      },
      async (request, reply) => {
        const run = await loadRun(request.principal, request.params.id);
        await lane.cancelRun(run.runId, scopedKey(request.principal, request.headers['idempotency-key']));
        reply.code(202);
        return { run: runView((await store.getRun(run.runId)) ?? run) };
      },
    );

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
        const run = await loadOpenRun(request.principal, request.params.id);
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
        const run = await loadOpenRun(request.principal, request.params.id);
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
  };
