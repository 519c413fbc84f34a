import { type AuditableCall, AuditPageSchema } from '@agentlane/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServerContext } from '../context.js';
import { HttpError, quote } from '../errors.js';
import { ErrorSchema, SessionId } from '../schemas.js';
import { assertSessionAccess, assertSessionExists } from './session-lookup.js';

/** What the audit route reads (an @agentlane/ledger AuditLedger fits); structural so the server needs no ledger dependency. */
export interface AuditReader {
  list(
    sessionId: string,
    query: { limit?: number; cursor?: string },
  ): Promise<{ items: AuditableCall[]; nextCursor: string | null }>;
}

/**
 * GET /sessions/:id/audit: the session's audit ledger rows, oldest first, with cursor pagination; 404 for a
 * session that does not exist (a deleted one's rows stay in the append-only ledger, unread here).
 */
export const auditRoutes =
  (ctx: ServerContext, reader: AuditReader | undefined): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/sessions/:id/audit',
      {
        schema: {
          summary:
            "The session's audit ledger (one row per model or tool call), oldest first, cursor-paginated",
          params: Type.Object({ id: SessionId }),
          querystring: Type.Object({
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
            cursor: Type.Optional(Type.String({ maxLength: 128 })),
          }),
          response: { 200: AuditPageSchema, 400: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema },
        },
      },
      async (request) => {
        await assertSessionAccess(ctx.store, request.principal, request.params.id);
        if (!reader) throw new HttpError('not_found', 'the audit ledger is not enabled on this server');
        const id = request.params.id;
        await assertSessionExists(
          ctx.store,
          id,
          async () => (await reader.list(id, { limit: 1 })).items.length > 0,
        );
        try {
          const page = await reader.list(request.params.id, {
            ...(request.query.limit !== undefined ? { limit: request.query.limit } : {}),
            ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
          });
          return { calls: page.items, nextCursor: page.nextCursor };
        } catch (err) {
          // The ledger's own message echoes the cursor unquoted.
          if ((err as { code?: string }).code === 'bad_cursor')
            throw new HttpError(
              'invalid_request',
              `cursor ${quote(request.query.cursor ?? '')} is not a cursor this server issued`,
              'query.cursor',
            );
          throw err;
        }
      },
    );
  };
