import type { CheckpointSaver } from '@agentlane/checkpoints';
import { ForkReplySchema, ForkRequestSchema } from '@agentlane/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertAllThreads, assertThreadAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import { ErrorSchema, ThreadParams } from '../schemas.js';
import { forkFromCheckpoint } from './fork-checkpoint.js';
import { forkAfterRun } from './fork-native.js';
import { checkpointAfterRun } from './fork-run-checkpoint.js';

/**
 * Time travel: POST /sessions/:id/fork makes a new thread on the same engine and work folder that continues
 * from a point of this one; the old thread is untouched. `{checkpointId}`: from one of agentlane's
 * checkpoints (fork-checkpoint.ts). `{runId}`: after that run's turn, through the engine's own fork
 * (fork-native.ts).
 */
export const forkRoutes =
  (ctx: ServerContext, saver: CheckpointSaver | undefined): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/sessions/:id/fork',
      {
        schema: {
          summary: 'Start a new thread continuing from a checkpoint or a run of this session (time travel)',
          params: ThreadParams,
          body: ForkRequestSchema,
          response: {
            201: ForkReplySchema,
            400: ErrorSchema,
            403: ErrorSchema,
            404: ErrorSchema,
            409: ErrorSchema,
          },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        assertThreadAccess(request.principal, id);
        assertAllThreads(request.principal, 'forking a session');
        const { checkpointId, runId } = request.body;
        if ((checkpointId === undefined) === (runId === undefined))
          throw new HttpError(
            'invalid_request',
            'name the fork point: checkpointId or runId (one of them)',
            'body',
          );
        const source = await ctx.store.getThread(id);
        if (!source) throw notFound('session', id, 'params.id');
        const title = request.body.title ?? `${source.title ?? 'Thread'} (fork)`;
        // After a run: the engine's own fork where it has one, else the run's last checkpoint.
        const native = ctx.engines.get(source.engine)?.forkSession !== undefined;
        const from =
          checkpointId ?? (native ? undefined : await checkpointAfterRun(ctx, saver, id, runId ?? ''));
        const forked = from
          ? await forkFromCheckpoint(ctx, saver, source, { checkpointId: from, title })
          : await forkAfterRun(ctx, source, { runId: runId ?? '', title });
        reply.code(201);
        return forked;
      },
    );
  };
