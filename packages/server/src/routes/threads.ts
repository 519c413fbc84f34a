import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertThreadAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { notFound } from '../errors.js';
import { sseResponse } from '../openapi-responses.js';
import { CursorErrorSchema, ErrorSchema, LastEventIdHeaders, StreamQuery, ThreadParams } from '../schemas.js';
import { openThreadStream } from '../sse/open-stream.js';
import { resumeCursor } from '../sse/resume-cursor.js';

export const threadRoutes =
  (ctx: ServerContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/threads/:id/events',
      {
        // A HEAD would open a stream with no body to read, held (and counted against the token's streams)
        // until the client hangs up: a stream route answers GET only.
        exposeHeadRoute: false,
        schema: {
          summary:
            'The thread channel (SSE): stream.opened, replay after the cursor, then live; id = deliverySeq',
          params: ThreadParams,
          querystring: StreamQuery,
          headers: LastEventIdHeaders,
          response: {
            200: sseResponse(
              'StreamEvents: stream.opened, the replay after the cursor, then live rows and signals',
            ),
            400: CursorErrorSchema,
            403: ErrorSchema,
            404: ErrorSchema,
            409: CursorErrorSchema,
          },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        assertThreadAccess(request.principal, id);
        if (!(await ctx.store.getThread(id))) throw notFound('thread', id, 'params.id');
        // The head only grows: a cursor at or below it now is at or below it when the subscription opens.
        const head = await ctx.store.headDeliverySeq(id);
        const after = resumeCursor(request.query, request.headers['last-event-id'], head);
        await openThreadStream(ctx, reply, id, after);
      },
    );
  };
