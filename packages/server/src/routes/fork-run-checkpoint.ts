import type { CheckpointSaver } from '@agentlane/checkpoints';
import type { ServerContext } from '../context.js';
import { HttpError, quote } from '../errors.js';

const FIELD = 'body.runId';
const PAGE = 200;

/**
 * `{runId}` on an engine whose state is in agentlane's checkpoints: the run's last root checkpoint (the one
 * that closed its turn), so a client can say "after this turn" to every engine that can fork. Undefined when
 * the thread has no checkpoints (the engine keeps its state elsewhere); 404/409 naming the run otherwise.
 */
export async function checkpointAfterRun(
  ctx: ServerContext,
  saver: CheckpointSaver | undefined,
  threadId: string,
  runId: string,
): Promise<string | undefined> {
  if (!saver) return undefined;
  const run = await ctx.store.getRun(runId);
  if (!run || run.threadId !== threadId)
    throw new HttpError('not_found', `session ${quote(threadId)} has no run ${quote(runId)}`, FIELD);
  if (run.outcome === null || run.startedAt === null || run.endedAt === null)
    throw new HttpError('conflict', `run ${quote(runId)} has not finished: fork after it once it has`, FIELD);
  const from = Date.parse(run.startedAt);
  const to = Date.parse(run.endedAt);
  let any = false;
  // Newest first: the first root checkpoint taken between the run's start and its end closed its turn.
  for (let cursor: string | undefined; ; ) {
    const page = await saver.list({
      sessionId: threadId,
      namespace: '',
      limit: PAGE,
      ...(cursor ? { cursor } : {}),
    });
    for (const item of page.items) {
      any = true;
      const at = Date.parse(item.createdAt);
      if (at <= to && at >= from) return item.checkpointId;
      if (at < from) return noCheckpoint(runId);
    }
    if (!page.nextCursor) return any ? noCheckpoint(runId) : undefined;
    cursor = page.nextCursor;
  }
}

function noCheckpoint(runId: string): never {
  throw new HttpError('conflict', `run ${quote(runId)} left no checkpoint to continue from`, FIELD);
}
