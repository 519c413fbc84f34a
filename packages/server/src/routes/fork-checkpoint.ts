import { CheckpointError, type CheckpointSaver, newCheckpointId } from '@agentlane/checkpoints';
import type { ForkedFrom, ForkReply } from '@agentlane/contract';
import type { RunRecord, ThreadRecord } from '@agentlane/store';
import type { ServerContext } from '../context.js';
import { HttpError, quote } from '../errors.js';
import { CHECKPOINT_ERROR_STATUS } from './checkpoint-handlers.js';
import { createForkThread } from './fork-thread.js';
import { sessionView } from './session-view.js';

/**
 * Fork from a checkpoint: a new thread on the same engine and work folder whose first checkpoint is a copy
 * of the chosen one, so its first run continues from that state (the built-in engine reads its session's
 * latest checkpoint when a turn starts). The old thread and its checkpoints are untouched. Only engines
 * whose state lives in agentlane's checkpoints have any: for the others the answer is 404.
 */
export async function forkFromCheckpoint(
  ctx: ServerContext,
  saver: CheckpointSaver | undefined,
  source: ThreadRecord,
  request: { checkpointId: string; title: string },
): Promise<ForkReply> {
  const id = source.threadId;
  if (!saver) throw new HttpError('not_found', 'checkpoints are not enabled on this server');
  const { checkpointId } = request;
  const summary = await readingCheckpoint(() => saver.describe(id, checkpointId));
  const checkpoint = summary ? await readingCheckpoint(() => saver.get(id, checkpointId)) : undefined;
  if (!summary || !checkpoint)
    throw new HttpError(
      'not_found',
      `session ${quote(id)} has no checkpoint ${quote(checkpointId)}`,
      'body.checkpointId',
    );
  if (summary.namespace !== '')
    throw new HttpError(
      'invalid_request',
      `checkpoint ${quote(checkpointId)} belongs to the child session ${quote(summary.namespace)}; fork from a root checkpoint`,
      'body.checkpointId',
    );
  const forkedFrom = {
    threadId: id,
    checkpointId,
    stageId: summary.stageId,
    at: summary.createdAt,
    runId: runOfCheckpoint(await ctx.store.listRuns(id), summary.createdAt),
    headSeq: await ctx.store.headDeliverySeq(id),
  } satisfies ForkedFrom;
  const { thread, session } = await createForkThread(ctx, source, { title: request.title, forkedFrom });
  const copy = newCheckpointId();
  const { parentCheckpointId: _parent, ...rest } = checkpoint;
  await saver.put({
    ...rest,
    id: copy,
    sessionId: thread.threadId,
    createdAt: new Date().toISOString(),
  });
  return { session: sessionView(thread, session), forkedFrom, checkpointId: copy };
}

/**
 * The run a checkpoint was taken in: the last one started by then (a thread's runs take turns, and the next
 * starts only after this one's last checkpoint). Null when none had started (a fork's copy of a checkpoint).
 */
function runOfCheckpoint(runs: readonly RunRecord[], at: string): string | null {
  const cut = Date.parse(at);
  let found: RunRecord | undefined;
  for (const run of runs) {
    if (run.startedAt === null || Date.parse(run.startedAt) > cut) continue;
    if (!found || Date.parse(run.startedAt) >= Date.parse(found.startedAt!)) found = run;
  }
  return found?.runId ?? null;
}

/**
 * A saver refusal while reading the fork point is about the request (an id that is no checkpoint id is
 * `invalid_argument`): a 4xx naming body.checkpointId, as the checkpoint routes answer it, not a 500.
 */
async function readingCheckpoint<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof CheckpointError)) throw error;
    const status = CHECKPOINT_ERROR_STATUS[error.code];
    if (status >= 500) throw error;
    throw new HttpError(
      status === 404 ? 'not_found' : status === 409 ? 'conflict' : 'invalid_request',
      error.message,
      'body.checkpointId',
    );
  }
}
