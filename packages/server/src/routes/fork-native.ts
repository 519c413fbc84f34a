import type { ForkedFrom, ForkReply } from '@agentlane/contract';
import { type ForkSessionRequest, isForkRefused, type NativeForkPoint } from '@agentlane/engine-kit';
import type { ThreadRecord } from '@agentlane/store';
import type { CatalogEngine, ServerContext } from '../context.js';
import { HttpError, quote } from '../errors.js';
import type { NativeBinding } from '../thread-create.js';
import { createForkThread } from './fork-thread.js';
import { sessionView } from './session-view.js';

const FIELD = 'body.runId';

/**
 * Fork after a run, for engines that keep their own state and can fork it (the driver's forkSession:
 * OpenCode's fork at a message, an ACP agent's session/fork at the session's end). The new thread starts
 * bound to what the driver returns, so its first run continues the fork through the lane's ordinary open.
 */
export async function forkAfterRun(
  ctx: ServerContext,
  source: ThreadRecord,
  request: { runId: string; title: string },
): Promise<ForkReply> {
  const id = source.threadId;
  const driver = ctx.engines.get(source.engine);
  const fork = driver?.forkSession?.bind(driver);
  if (!fork)
    throw new HttpError(
      'conflict',
      `engine "${source.engine}" cannot fork its own sessions (OpenCode and ACP agents that advertise session/fork can); an engine whose state is in agentlane's checkpoints forks from one: name checkpointId`,
      FIELD,
    );
  const point = await forkPoint(ctx, id, request.runId);
  const origin = await ctx.store.getSession(id);
  if (!origin?.nativeSessionId)
    throw new HttpError('conflict', `session ${quote(id)} has no native session to fork`, FIELD);
  const binding = await askToFork(source.engine, fork, {
    source: { provider: origin.provider, ...nativeBinding(origin) },
    workDir: source.workDir ?? ctx.defaultWorkDir,
    point,
  });
  // The cut the fork's history is read up to: the run's end, and the whole run (its turn ends the history).
  const run = await ctx.store.getRun(request.runId);
  const forkedFrom = {
    threadId: id,
    stageId: 'post-turn',
    at: run?.endedAt ?? new Date().toISOString(),
    runId: request.runId,
    headSeq: await ctx.store.headDeliverySeq(id),
  } satisfies ForkedFrom;
  const { thread, session } = await createForkThread(ctx, source, {
    title: request.title,
    forkedFrom,
    binding,
  });
  return { session: sessionView(thread, session), forkedFrom };
}

/** The run as a fork point: one of the thread's runs, finished; the engine's message ids its events carry. */
async function forkPoint(ctx: ServerContext, threadId: string, runId: string): Promise<NativeForkPoint> {
  const runs = await ctx.store.listRuns(threadId);
  const index = runs.findIndex((r) => r.runId === runId);
  const run = runs[index];
  if (!run) throw new HttpError('not_found', `session ${quote(threadId)} has no run ${quote(runId)}`, FIELD);
  if (run.outcome === null)
    throw new HttpError('conflict', `run ${quote(runId)} has not finished: fork after it once it has`, FIELD);
  const rows = await ctx.store.latestEvents({ threadId, runId });
  const ids = rows.flatMap((r) =>
    r.event.identity.nativeMessageId ? [r.event.identity.nativeMessageId] : [],
  );
  return { atEnd: index === runs.length - 1, nativeMessageIds: [...new Set(ids)] };
}

/** The driver's fork: a refusal is the client's 409, any other failure the engine's (503). */
async function askToFork(
  engine: string,
  fork: NonNullable<CatalogEngine['forkSession']>,
  request: ForkSessionRequest,
): Promise<NativeBinding> {
  try {
    // Only the binding's own fields: nothing a driver returns can name another thread.
    return nativeBinding(await fork(request));
  } catch (error) {
    if (isForkRefused(error)) throw new HttpError('conflict', error.message, FIELD);
    const message = error instanceof Error ? error.message : String(error);
    throw new HttpError('unavailable', `${engine} could not fork its session: ${message}`);
  }
}

function nativeBinding(from: NativeBinding): NativeBinding {
  const { nativeSessionId, runtimeBinding, protocolVersion, capabilities } = from;
  return { nativeSessionId, runtimeBinding, protocolVersion, capabilities };
}
