import { createHash } from 'node:crypto';
import { STAGE_IDS, type StageId } from '@agentlane/contract';
import { CheckpointError } from '../errors.js';
import { isJsonValue } from '../json.js';
import type { CheckpointSummary, ListQuery, PutOptions, WriteInput } from '../saver.js';
import { isValidId } from '../validate.js';
import type { RowMeta } from './rows.js';

// The saver's argument checks (each refusal is a CheckpointError naming the field) and its row summary.

const MAX_LIMIT = 1000;

export function requireId(field: string, value: unknown): string {
  if (!isValidId(value))
    throw new CheckpointError('invalid_argument', `${field} must be an id string`, undefined, field);
  return value;
}

export function namespaceOf(options: PutOptions | undefined): string {
  const ns = options?.namespace ?? '';
  if (typeof ns !== 'string' || ns.length > 256) {
    throw new CheckpointError(
      'invalid_argument',
      'namespace must be a string of at most 256 characters',
      undefined,
      'namespace',
    );
  }
  return ns;
}

export function summary(meta: RowMeta): CheckpointSummary {
  return {
    checkpointId: meta.checkpointId,
    sessionId: meta.sessionId,
    namespace: meta.namespace,
    stageId: meta.stageId as StageId,
    createdAt: meta.createdAt,
    schemaVersion: meta.schemaVersion,
    parentCheckpointId: meta.parentCheckpointId,
    storage: meta.storage,
    bytes: meta.bytes,
    pinned: meta.pinned,
  };
}

/**
 * The cursor of the page after the row at `seq`: the position, and a tag of the session it is a position in,
 * so that another session's cursor is refused (a position in one session's rows named nothing in another's,
 * and was answered with an empty page).
 */
export function listCursor(sessionId: string, seq: number): string {
  return `c${seq}-${sessionTag(sessionId)}`;
}

const sessionTag = (sessionId: unknown): string =>
  createHash('sha256').update(String(sessionId)).digest('hex').slice(0, 8);

/** The page size and the position a list cursor names. */
export function listArguments(query: ListQuery): { limit: number; beforeSeq: number | undefined } {
  const limit = query.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new CheckpointError(
      'invalid_argument',
      `limit must be an integer in 1..${MAX_LIMIT}`,
      undefined,
      'limit',
    );
  }
  if (query.stageId !== undefined && !(STAGE_IDS as readonly string[]).includes(query.stageId)) {
    throw new CheckpointError(
      'invalid_argument',
      `stageId must be one of ${STAGE_IDS.join(', ')}`,
      undefined,
      'stageId',
    );
  }
  let beforeSeq: number | undefined;
  if (query.cursor !== undefined) {
    // Written as the saver writes it (no leading zero, no sign): `c01` was read as `c1`, a cursor never issued.
    const decoded = /^c([1-9][0-9]{0,14})-([0-9a-f]{8})$/.exec(query.cursor);
    if (!decoded || decoded[2] !== sessionTag(query.sessionId))
      throw new CheckpointError(
        'invalid_argument',
        'cursor is not one this saver returned',
        undefined,
        'cursor',
      );
    beforeSeq = Number(decoded[1]);
  }
  return { limit, beforeSeq };
}

/** The writes of one task, checked and encoded as rows. */
export function encodeWrites(
  taskId: string,
  writes: readonly WriteInput[],
): { taskId: string; idx: number; channel: string; value: string }[] {
  if (!Array.isArray(writes))
    throw new CheckpointError('invalid_argument', 'writes must be an array', undefined, 'writes');
  return writes.map((write, idx) => {
    if (typeof write?.channel !== 'string' || write.channel.length === 0) {
      throw new CheckpointError(
        'invalid_argument',
        `writes[${idx}].channel must be a non-empty string`,
        undefined,
        'channel',
      );
    }
    if (!isJsonValue(write.value)) {
      throw new CheckpointError(
        'invalid_argument',
        `writes[${idx}].value must be plain JSON`,
        undefined,
        'value',
      );
    }
    return { taskId, idx, channel: write.channel, value: JSON.stringify(write.value) };
  });
}

export function requireKeepNewest(keepNewest: number): void {
  if (!Number.isInteger(keepNewest) || keepNewest < 0) {
    throw new CheckpointError(
      'invalid_argument',
      'keepNewest must be an integer >= 0',
      undefined,
      'keepNewest',
    );
  }
}
