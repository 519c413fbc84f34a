import type { CheckpointSaver } from '@agentlane/checkpoints';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertAllThreads, assertThreadAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import { ErrorSchema, SessionView, ThreadParams } from '../schemas.js';
import { forkFromCheckpoint } from './fork-checkpoint.js';
import { forkAfterRun } from './fork-native.js';

const ForkBody = Type.Object(
  {
    checkpointId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Fork from this checkpoint (engines whose state is in agentlane’s checkpoints: built-in).',
      }),
    ),
    runId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Fork after this run’s turn (engines that fork natively: OpenCode after any run, an ACP agent advertising session/fork after the latest).',
      }),
    ),
    title: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

const ForkReply = Type.Object({
  session: SessionView,
  forkedFrom: Type.Object({
    threadId: Type.String(),
    checkpointId: Type.Optional(Type.String()),
    runId: Type.Optional(Type.String()),
  }),
  /** The new thread's own copy of the checkpoint (a checkpoint fork): its first run starts from this state. */
  checkpointId: Type.Optional(Type.String()),
});

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
          body: ForkBody,
          response: {
            201: ForkReply,
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
        if (!source) throw notFound('session', id);
        const title = request.body.title ?? `${source.title ?? 'Thread'} (fork)`;
        const forked = checkpointId
          ? await forkFromCheckpoint(ctx, saver, source, { checkpointId, title })
          : await forkAfterRun(ctx, source, { runId: runId ?? '', title });
        reply.code(201);
        return forked;
      },
    );
  };
