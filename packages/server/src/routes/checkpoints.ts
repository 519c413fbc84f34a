import type { CheckpointSaver } from '@agentlane/checkpoints';
import {
  type CheckpointErrorBody,
  CheckpointErrorBodySchema,
  CheckpointListSchema,
  CheckpointSchema,
  STAGE_IDS,
} from '@agentlane/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { ServerContext } from '../context.js';
import { codeForStatus, ERROR_STATUS, escapeUnsafe, HttpError, notFound } from '../errors.js';
import { ErrorSchema, SessionId } from '../schemas.js';
import { checkpointHandlers, type HttpAnswer } from './checkpoint-handlers.js';
import { assertSessionAccess, sessionExists } from './session-lookup.js';

// The checkpoint routes of issue 8. The handlers (checkpoint-handlers.ts) are framework-free; this file
// only binds them to Fastify, auth and the OpenAPI document.

const Id = Type.String({ minLength: 1, maxLength: 200 });

const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 64 })),
  namespace: Type.Optional(Type.String({ maxLength: 256 })),
  stageId: Type.Optional(Type.Enum([...STAGE_IDS])),
});

/**
 * The handler's answer in the server's error contract: its codes (`invalid_argument`, `corrupt_row`, …) become
 * the status table's code for the same status, `querystring.x` fields become `query.x`; a corrupt row's 500
 * keeps the checkpoint id it names.
 */
function send(reply: FastifyReply, answer: HttpAnswer, part: 'query' | 'params') {
  if (answer.status < 400) return reply.code(answer.status).send(answer.body);
  const { error } = answer.body as CheckpointErrorBody;
  const code = codeForStatus(answer.status);
  // The saver names the session `sessionId`; in this route it is the path's `id`.
  const named = error.field === 'sessionId' ? 'params.id' : error.field;
  const bare = named?.replace(/^(querystring|query|params)\./, '');
  const field = bare === undefined ? undefined : `${named?.startsWith('params.') ? 'params' : part}.${bare}`;
  return reply.code(ERROR_STATUS[code]).send({
    error: {
      code,
      // The saver's messages quote ids of the request: escaped as every HttpError message is.
      message: escapeUnsafe(error.message),
      ...(field ? { field: escapeUnsafe(field) } : {}),
      ...(error.checkpointId ? { checkpointId: error.checkpointId } : {}),
    },
  });
}

/**
 * `saver` undefined: the routes exist (and are documented) but answer 404 "checkpoints are not enabled". A
 * session id that is no session (nor a child of one) is 404 `params.id`, unless it is a plain id the saver
 * holds checkpoints for: a runtime may checkpoint without a thread. A deleted session's checkpoints went
 * with it; its sub-agents' are 404 with their thread.
 */
export const checkpointRoutes =
  (ctx: ServerContext, saver: CheckpointSaver | undefined): FastifyPluginAsyncTypebox =>
  async (app) => {
    const handlers = saver ? checkpointHandlers(saver) : undefined;
    // A session of the saver's own: a plain id (no thread's child) it holds checkpoints for.
    // An id the saver refuses (its own rules) holds no checkpoints: the 404 below, never the saver's throw.
    const saverOwn = async (sessionId: string) => {
      if (!saver || sessionId.includes(':')) return false;
      const page = await saver.list({ sessionId, limit: 1 }).catch(() => undefined);
      return (page?.items.length ?? 0) > 0;
    };
    const enabled = async (sessionId: string) => {
      if (!handlers) throw new HttpError('not_found', 'checkpoints are not enabled on this server');
      const childHasRows = async () =>
        ((await saver?.list({ sessionId, limit: 1 }).catch(() => undefined))?.items.length ?? 0) > 0;
      if (!(await sessionExists(ctx.store, sessionId, childHasRows)) && !(await saverOwn(sessionId)))
        throw notFound('session', sessionId, 'params.id');
      return handlers;
    };

    app.get(
      '/sessions/:id/checkpoints',
      {
        schema: {
          summary: "List a session's checkpoints, newest first, with cursor pagination",
          params: Type.Object({ id: SessionId }),
          querystring: ListQuery,
          response: {
            200: CheckpointListSchema,
            400: CheckpointErrorBodySchema,
            403: ErrorSchema,
            404: ErrorSchema,
            500: CheckpointErrorBodySchema,
          },
        },
      },
      async (request, reply) => {
        await assertSessionAccess(ctx.store, request.principal, request.params.id);
        const { id } = request.params;
        return send(reply, await (await enabled(id)).list(id, request.query), 'query');
      },
    );

    app.get(
      '/sessions/:id/checkpoints/:checkpointId',
      {
        schema: {
          summary: 'One checkpoint, fully hydrated, as the contract Checkpoint envelope',
          params: Type.Object({ id: SessionId, checkpointId: Id }),
          response: {
            200: CheckpointSchema,
            403: ErrorSchema,
            404: ErrorSchema,
            500: CheckpointErrorBodySchema,
          },
        },
      },
      async (request, reply) => {
        await assertSessionAccess(ctx.store, request.principal, request.params.id);
        const { id, checkpointId } = request.params;
        return send(reply, await (await enabled(id)).get(id, checkpointId), 'params');
      },
    );
  };
