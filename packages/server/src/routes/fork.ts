import { type CheckpointSaver, newCheckpointId } from '@agentlane/checkpoints';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertAllThreads, assertThreadAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import { ErrorSchema, SessionView, ThreadParams } from '../schemas.js';
import { createThreadSession } from '../thread-create.js';
import { sessionView } from './session-view.js';

const ForkBody = Type.Object(
  {
    checkpointId: Type.String({ minLength: 1, maxLength: 200 }),
    title: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

const ForkReply = Type.Object({
  session: SessionView,
  forkedFrom: Type.Object({ threadId: Type.String(), checkpointId: Type.String() }),
  /** The new thread's own copy of the checkpoint: its first run starts from this state. */
  checkpointId: Type.String(),
});

/**
 * Time travel: POST /sessions/:id/fork {checkpointId} makes a new thread on the same engine and work folder
 * whose first checkpoint is a copy of the chosen one, so its first run continues from that state (the
 * built-in engine reads its session's latest checkpoint when a turn starts). The old thread and its
 * checkpoints are untouched. Only engines whose state lives in agentlane's checkpoints can fork this way;
 * for the others the session has no checkpoint and the answer is 404.
 */
export const forkRoutes =
  (ctx: ServerContext, saver: CheckpointSaver | undefined): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/sessions/:id/fork',
      {
        schema: {
          summary: 'Start a new thread continuing from one of this session’s checkpoints (time travel)',
          params: ThreadParams,
          body: ForkBody,
          response: { 201: ForkReply, 400: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        assertThreadAccess(request.principal, id);
        assertAllThreads(request.principal, 'forking a session');
        const source = await ctx.store.getThread(id);
        if (!source) throw notFound('session', id);
        if (!saver) throw new HttpError('not_found', 'checkpoints are not enabled on this server');
        const { checkpointId } = request.body;
        const summary = await saver.describe(id, checkpointId);
        const checkpoint = summary ? await saver.get(id, checkpointId) : undefined;
        if (!summary || !checkpoint)
          throw new HttpError(
            'not_found',
            `session ${id} has no checkpoint ${checkpointId}`,
            'body.checkpointId',
          );
        if (summary.namespace !== '')
          throw new HttpError(
            'invalid_request',
            `checkpoint ${checkpointId} belongs to the child session "${summary.namespace}"; fork from a root checkpoint`,
            'body.checkpointId',
          );
        const forkedFrom = { threadId: id, checkpointId };
        const { thread, session } = await createThreadSession(ctx, {
          engine: source.engine,
          ...(source.workDir ? { workDir: source.workDir } : {}),
          title: request.body.title ?? `${source.title ?? 'Thread'} (fork)`,
          metadata: { forkedFrom },
        });
        const copy = newCheckpointId();
        const { parentCheckpointId: _parent, ...rest } = checkpoint;
        await saver.put({
          ...rest,
          id: copy,
          sessionId: thread.threadId,
          createdAt: new Date().toISOString(),
        });
        reply.code(201);
        return { session: sessionView(thread, session), forkedFrom, checkpointId: copy };
      },
    );
  };
