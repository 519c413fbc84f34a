import { CheckpointError, type CheckpointErrorCode, type CheckpointSaver } from '@agentlane/checkpoints';
import { type CheckpointList, STAGE_IDS, type StageId } from '@agentlane/contract';
import { quote } from '../errors.js';

// The checkpoint routes as plain functions over a saver; checkpoints.ts binds them to Fastify, auth and the
// server's error contract.

/** HTTP status per checkpoint error code, so the routes map the saver's errors in one place. */
export const CHECKPOINT_ERROR_STATUS: Record<CheckpointErrorCode, number> = {
  invalid_checkpoint: 400,
  unknown_channel_kind: 400,
  unknown_reducer: 400,
  invalid_channel_value: 400,
  invalid_update: 400,
  empty_channel: 409,
  missing_parent: 409,
  version_regression: 409,
  unversioned_change: 409,
  duplicate_checkpoint: 409,
  not_found: 404,
  corrupt_row: 500,
  invalid_argument: 400,
};

/** A framework-free answer: the server turns it into a reply, tests call it directly. */
export interface HttpAnswer {
  status: number;
  body: unknown;
}

export interface ListCheckpointsQuery {
  limit?: string | number;
  cursor?: string;
  namespace?: string;
  stageId?: string;
}

function errorAnswer(error: unknown): HttpAnswer {
  if (!(error instanceof CheckpointError)) throw error;
  const status = CHECKPOINT_ERROR_STATUS[error.code];
  // A corrupt row is the server's problem, but the id of the row is what an operator needs.
  return { status, body: { error: error.toJSON() } };
}

function queryError(field: string, message: string): HttpAnswer {
  return {
    status: 400,
    body: { error: { code: 'invalid_argument', message, field: `querystring.${field}` } },
  };
}

/**
 * The two checkpoint routes as plain functions over a saver:
 * `GET /sessions/:id/checkpoints` (list, newest first, cursor) and
 * `GET /sessions/:id/checkpoints/:checkpointId` (the hydrated envelope as contract JSON).
 */
export function checkpointHandlers(saver: CheckpointSaver) {
  return {
    async list(sessionId: string, query: ListCheckpointsQuery = {}): Promise<HttpAnswer> {
      let limit: number | undefined;
      if (query.limit !== undefined) {
        limit = Number(query.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
          return queryError('limit', 'limit must be an integer in 1..1000');
        }
      }
      if (query.stageId !== undefined && !(STAGE_IDS as readonly string[]).includes(query.stageId)) {
        return queryError('stageId', `stageId must be one of ${STAGE_IDS.join(', ')}`);
      }
      try {
        const page = await saver.list({
          sessionId,
          ...(limit === undefined ? {} : { limit }),
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
          ...(query.namespace === undefined ? {} : { namespace: query.namespace }),
          ...(query.stageId === undefined ? {} : { stageId: query.stageId as StageId }),
        });
        const body: CheckpointList = { checkpoints: page.items, nextCursor: page.nextCursor };
        return { status: 200, body };
      } catch (error) {
        return errorAnswer(error);
      }
    },

    async get(sessionId: string, checkpointId: string): Promise<HttpAnswer> {
      try {
        const checkpoint = await saver.get(sessionId, checkpointId);
        if (!checkpoint) {
          return {
            status: 404,
            body: {
              error: {
                code: 'not_found',
                message: `checkpoint ${quote(checkpointId)} not found in session ${quote(sessionId)}`,
                field: 'params.checkpointId',
              },
            },
          };
        }
        return { status: 200, body: checkpoint };
      } catch (error) {
        return errorAnswer(error);
      }
    },
  };
}

export type CheckpointHandlers = ReturnType<typeof checkpointHandlers>;
