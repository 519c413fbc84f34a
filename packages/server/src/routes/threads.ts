import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertThreadAccess } from '../auth';
import type { ServerContext } from '../context';
import { notFound } from '../errors';
import { ErrorSchema, LastEventIdHeaders, StreamQuery, ThreadParams } from '../schemas';
import { openThreadStream, resumeCursor } from '../sse/open-stream';

export const threadRoutes =
  (ctx: ServerContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/threads/:id/events',
      {
        schema: {
          summary:
            'The thread channel (SSE): stream.opened, replay after the cursor, then live; id = deliverySeq',
          params: ThreadParams,
          querystring: StreamQuery,
          headers: LastEventIdHeaders,
          response: { 400: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        assertThreadAccess(request.principal, id);
        const after = resumeCursor(request.query, request.headers['last-event-id']);
        if (!(await ctx.store.getThread(id))) throw notFound('thread', id);
        await openThreadStream(ctx, reply, id, after);
      },
    );
  };
