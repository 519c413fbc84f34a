import type { StageId } from '@agentlane/contract';
import { memoryFrom, nextChannels } from './checkpoint-channels.js';
import type { TurnContext } from './context.js';
import type { TurnDeps } from './deps.js';

/** Saves the turn's conversation and plan as the session's next checkpoint (memory only without a saver). */
export async function saveCheckpoint(ctx: TurnContext, stage: StageId): Promise<void> {
  const { deps, mem, conversation, plan } = ctx;
  mem.conversation = conversation;
  mem.plan = plan;
  if (!deps.saver) return;
  const id = deps.ids();
  const { channels, saved } = nextChannels(mem.saved, conversation, plan);
  const saver = deps.saver;
  await withBusyRetry(() =>
    saver.put({
      id,
      sessionId: deps.threadId,
      stageId: stage,
      createdAt: deps.clock(),
      schemaVersion: 1,
      channels,
      ...(mem.checkpointId ? { parentCheckpointId: mem.checkpointId } : {}),
    }),
  );
  mem.checkpointId = id;
  mem.saved = saved;
  ctx.emit({ rt: 'checkpoint', stage, checkpointId: id });
}

/**
 * SQLite answers SQLITE_BUSY at once (no busy wait) when a deferred transaction sharing the file with the
 * store's writer must upgrade to a write lock; retrying the whole put is the documented remedy.
 */
async function withBusyRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const busy =
        /database is locked|SQLITE_BUSY/i.test(String((err as Error).message)) ||
        (err as { code?: string }).code === 'SQLITE_BUSY';
      if (!busy || attempt >= 400) throw err;
      await new Promise((r) => setTimeout(r, Math.min(attempt, 20)));
    }
  }
}

/**
 * Whether the thread's newest checkpoint is not the one this engine session wrote last: another runtime
 * (the Python one, another process) ran a turn on the session since, and this turn must start from it.
 */
export async function latestMoved(deps: TurnDeps): Promise<boolean> {
  if (!deps.saver) return false;
  const page = await deps.saver.list({ sessionId: deps.threadId, namespace: '', limit: 1 });
  return (page.items[0]?.checkpointId ?? undefined) !== deps.session.checkpointId;
}

/** The session's memory from the thread's latest checkpoint (empty when there is none). */
export async function loadLatest(deps: TurnDeps): Promise<void> {
  const mem = deps.session;
  mem.loaded = true;
  const latest = deps.saver ? await deps.saver.getLatest(deps.threadId) : undefined;
  if (!latest) return;
  const { conversation, plan, saved } = memoryFrom(latest);
  mem.conversation = conversation;
  mem.plan = plan;
  mem.checkpointId = latest.id;
  mem.saved = saved;
}
