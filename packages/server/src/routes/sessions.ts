import { StoreError } from '@agentlane/store';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertAllThreads, assertThreadAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { HttpError } from '../errors.js';
import {
  CreateSessionBody,
  ErrorSchema,
  ListSessionsQuery,
  ListSessionsReply,
  SessionReply,
  ThreadParams,
  UpdateSessionBody,
} from '../schemas.js';
import { createThreadSession } from '../thread-create.js';
import type { RouteApp } from './route-app.js';
import { threadActivity } from './session-activity.js';
import { loadSessionThread } from './session-lookup.js';
import { sessionView } from './session-view.js';

export const sessionRoutes =
  (ctx: ServerContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    const { store } = ctx;

    const loadThread = (id: string) => loadSessionThread(store, id);

    listSessionsRoute(app, ctx);

    app.post(
      '/sessions',
      {
        schema: {
          summary: 'Create a thread and its harness session for a configured engine and a work folder',
          body: CreateSessionBody,
          response: { 201: SessionReply, 400: ErrorSchema, 403: ErrorSchema },
        },
      },
      async (request, reply) => {
        assertAllThreads(request.principal, 'creating a session');
        const body = request.body;
        const { thread, session } = await createThreadSession(ctx, {
          engine: body.engine,
          ...(body.workDir !== undefined ? { workDir: body.workDir } : {}),
          ...(body.title !== undefined ? { title: body.title } : {}),
          metadata: (body.metadata ?? {}) as never,
        });
        reply.code(201);
        return { session: sessionView(thread, session) };
      },
    );

    app.get(
      '/sessions/:id',
      {
        schema: {
          summary: 'Read one session',
          params: ThreadParams,
          response: { 200: SessionReply, 404: ErrorSchema },
        },
      },
      async (request) => {
        assertThreadAccess(request.principal, request.params.id);
        const thread = await loadThread(request.params.id);
        return {
          session: {
            ...sessionView(thread, await store.getSession(thread.threadId)),
            activity: await threadActivity(store, thread.threadId),
          },
        };
      },
    );

    updateSessionRoute(app, ctx);

    app.delete(
      '/sessions/:id',
      {
        schema: {
          summary: 'Delete a session and its thread',
          params: ThreadParams,
          response: { 204: Type.Null(), 404: ErrorSchema, 409: ErrorSchema },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        assertThreadAccess(request.principal, id);
        await loadThread(id);
        // A run still queued or running would go on writing into a thread that is gone: cancel it first. The
        // store decides in the deleting transaction, against a run.create on another process at the same time.
        await store.deleteThread(id).catch((error: unknown) => {
          if (error instanceof StoreError && error.code === 'conflict' && error.detail === 'active_run')
            throw new HttpError('conflict', error.message, 'params.id');
          throw error;
        });
        // Checkpoints are the session's state, not a ledger: they go with it (the audit ledger stays).
        await ctx.checkpoints?.deleteSession(id);
        // The streams of the thread end, on this process and the others sharing the database (their clients'
        // reconnects get 404).
        ctx.hub.threadDeleted(id);
        reply.code(204).send(null);
      },
    );
  };

/** GET /sessions: the principal's threads with their session and activity, newest first, cursor-paginated. */
function listSessionsRoute(app: RouteApp, ctx: ServerContext): void {
  const { store } = ctx;
  app.get(
    '/sessions',
    {
      schema: {
        summary: 'List sessions (threads), newest first, with cursor pagination',
        querystring: ListSessionsQuery,
        response: { 200: ListSessionsReply, 400: ErrorSchema },
      },
    },
    async (request) => {
      const { engine, search, limit = 50, cursor } = request.query;
      const scope = request.principal.threads;
      // Filtered in the query, before paging: cursors and search never reach another token's threads.
      const page = await store
        .listThreads({
          engine,
          search,
          limit,
          cursor,
          ...(scope === '*' ? {} : { threadIds: [...scope] }),
        })
        .catch((error: unknown) => {
          // The only input the store refuses here is the cursor: name it, as the other paged routes do.
          if (error instanceof StoreError && error.code === 'invalid')
            throw new HttpError('invalid_request', error.message, 'query.cursor');
          throw error;
        });
      const sessions = await Promise.all(
        page.items.map(async (t) => ({
          ...sessionView(t, await store.getSession(t.threadId)),
          activity: await threadActivity(store, t.threadId),
        })),
      );
      return { sessions, nextCursor: page.nextCursor };
    },
  );
}

/** PUT /sessions/:id: title and metadata; a stale expectedGeneration is refused. */
function updateSessionRoute(app: RouteApp, ctx: ServerContext): void {
  const { store } = ctx;
  app.put(
    '/sessions/:id',
    {
      schema: {
        summary: 'Update title/metadata; expectedGeneration guards against a swapped engine session',
        params: ThreadParams,
        body: UpdateSessionBody,
        response: { 200: SessionReply, 404: ErrorSchema, 409: ErrorSchema },
      },
    },
    async (request) => {
      const { id } = request.params;
      assertThreadAccess(request.principal, id);
      await loadSessionThread(store, id);
      const session = await store.getSession(id);
      const expected = request.body.expectedGeneration;
      if (expected !== undefined && (session?.generation ?? 0) !== expected) {
        throw new HttpError(
          'stale_generation',
          `session generation is ${session?.generation ?? 0}, not ${expected}`,
          'body.expectedGeneration',
        );
      }
      const patch: { title?: string | null; metadata?: never } = {};
      if (request.body.title !== undefined) patch.title = request.body.title;
      if (request.body.metadata !== undefined) patch.metadata = request.body.metadata as never;
      const thread = await store.updateThread(id, patch);
      return { session: sessionView(thread, session) };
    },
  );
}
