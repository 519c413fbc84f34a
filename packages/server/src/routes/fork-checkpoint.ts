import { type CheckpointSaver, newCheckpointId } from '@agentlane/checkpoints';
import type { ThreadRecord } from '@agentlane/store';
import type { ServerContext } from '../context.js';
import { HttpError } from '../errors.js';
import { createThreadSession } from '../thread-create.js';
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
) {
  const id = source.threadId;
  if (!saver) throw new HttpError('not_found', 'checkpoints are not enabled on this server');
  const { checkpointId } = request;
  const summary = await saver.describe(id, checkpointId);
  const checkpoint = summary ? await saver.get(id, checkpointId) : undefined;
  if (!summary || !checkpoint)
    throw new HttpError('not_found', `session ${id} has no checkpoint ${checkpointId}`, 'body.checkpointId');
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
    title: request.title,
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
  return { session: sessionView(thread, session), forkedFrom, checkpointId: copy };
}
