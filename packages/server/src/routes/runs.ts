import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertThreadAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { HttpError } from '../errors.js';
import {
  CreateRunBody,
  ErrorSchema,
  IdempotencyHeaders,
  RunParams,
  RunReply,
  ThreadParams,
} from '../schemas.js';
import { executeRoute } from './execute.js';
import { createRunFor, keyConflict, loadRun, scopedKey } from './run-access.js';
import { answerRoutes } from './run-answers.js';
import { runView } from './session-view.js';

export const runRoutes =
  (ctx: ServerContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    const { store, lane } = ctx;

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
        const { run, created } = await createRunFor(
          ctx,
          request.principal,
          request.params.id,
          request.body,
          request.headers['idempotency-key'],
        );
        reply.code(created ? 201 : 200);
        return { run: runView(run), created };
      },
    );

    executeRoute(app, ctx);

    app.get(
      '/runs/:id',
      {
        schema: { summary: 'Read a run', params: RunParams, response: { 200: RunReply, 404: ErrorSchema } },
      },
      async (request) => ({ run: runView(await loadRun(ctx, request.principal, request.params.id)) }),
    );

    app.post(
      '/runs/:id/cancel',
      {
        schema: {
          summary: 'run.cancel (durable: the process owning the run acts on it)',
          params: RunParams,
          headers: IdempotencyHeaders,
          response: { 202: RunReply, 404: ErrorSchema, 409: ErrorSchema },
        },
      },
      async (request, reply) => {
        // The route takes no body: fields a client believes it sends (a reason, a force flag) would be ignored.
        const body = request.body as unknown;
        if (body !== undefined && body !== null && !isEmptyObject(body))
          throw new HttpError('invalid_request', 'run.cancel takes no body (send none, or {})', 'body');
        const run = await loadRun(ctx, request.principal, request.params.id);
        const key = request.headers['idempotency-key'];
        await keyConflict(key, 'to cancel another run', () =>
          lane.cancelRun(run.runId, scopedKey(request.principal, key)),
        );
        reply.code(202);
        return { run: runView((await store.getRun(run.runId)) ?? run) };
      },
    );

    answerRoutes(app, ctx);
  };

const isEmptyObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
