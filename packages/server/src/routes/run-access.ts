import { StoreError } from '@agentlane/store';
import type { Static } from 'typebox';
import type { Principal } from '../auth.js';
import { canAccessThread } from '../auth.js';
import type { ServerContext } from '../context.js';
import { HttpError, notFound, quote } from '../errors.js';
import type { CreateRunBody } from '../schemas.js';

// What the run routes share: creating a run for a principal, and reading a run the principal may see.

/** Idempotency keys live per token: one tenant can neither learn nor squat another's keys. */
export const scopedKey = (principal: Principal, key: string | undefined): string | null =>
  key === undefined ? null : `${principal.key}:${key}`;

/**
 * The store's idempotency conflict as the client sent it: the header named, the key without its token scope.
 * `reused` says what the key was used for before.
 */
export async function keyConflict<T>(
  key: string | undefined,
  reused: string | ((detail: string | undefined) => string),
  work: () => Promise<T>,
) {
  try {
    return await work();
  } catch (err) {
    if (key === undefined || !(err instanceof StoreError) || err.code !== 'idempotency_conflict') throw err;
    throw new HttpError(
      'idempotency_conflict',
      `Idempotency-Key ${quote(key)} was already used ${typeof reused === 'string' ? reused : reused(err.detail)}; send a new key for a new request`,
      'headers.idempotency-key',
    );
  }
}

const createdOther = (detail: string | undefined) =>
  detail === 'other_thread'
    ? 'to create a run on another session'
    : 'to create another run: with another body (prompt, parentRunId, model or mode)';

/** run.create for a principal: the thread exists, a run slot is free, a parentRunId is a run of the thread. */
export async function createRunFor(
  ctx: ServerContext,
  principal: Principal,
  threadId: string,
  body: Static<typeof CreateRunBody>,
  idempotencyKey: string | undefined,
) {
  const { store, lane } = ctx;
  if (!(await store.getThread(threadId))) throw notFound('thread', threadId, 'params.id');
  await ctx.runSlots.check(principal.key);
  if (body.parentRunId !== undefined) {
    const parent = await store.getRun(body.parentRunId);
    if (!parent || parent.threadId !== threadId) {
      throw new HttpError(
        'invalid_request',
        `parentRunId ${quote(body.parentRunId)} is not a run of this thread`,
        'body.parentRunId',
      );
    }
  }
  const options: Record<string, string> = {};
  if (body.model !== undefined) options.model = body.model;
  if (body.mode !== undefined) options.mode = body.mode;
  const result = await keyConflict(idempotencyKey, createdOther, () =>
    lane
      .createRun({
        threadId,
        prompt: body.prompt,
        parentRunId: body.parentRunId ?? null,
        options,
        idempotencyKey: scopedKey(principal, idempotencyKey),
        expectedGeneration: body.expectedGeneration,
      })
      .catch((error: unknown) => {
        // The session was deleted (by another process) since it was read above: as if it had been before.
        if (error instanceof StoreError && error.code === 'not_found')
          throw notFound('thread', threadId, 'params.id');
        throw error;
      }),
  );
  if (result.created) ctx.runSlots.add(principal.key, result.run.runId);
  return result;
}

export async function loadRun(ctx: ServerContext, principal: Principal, runId: string) {
  const run = await ctx.store.getRun(runId);
  if (!run) throw notFound('run', runId, 'params.id');
  // The 403 names the run the request named, not its thread: that would tell another token's thread id.
  if (!canAccessThread(principal, run.threadId))
    throw new HttpError('forbidden', `this token is not allowed to access run ${quote(runId)}`, 'params.id');
  return run;
}

/** An answer to a settled run could reach no engine: refused instead of accepted and dropped. */
export async function loadOpenRun(ctx: ServerContext, principal: Principal, runId: string) {
  const run = await loadRun(ctx, principal, runId);
  if (run.status === 'completed' || run.status === 'failed') {
    throw new HttpError(
      'conflict',
      `run ${quote(runId)} has ended (${run.outcome ?? run.status}); its requests can no longer be answered`,
      'params.id',
    );
  }
  return run;
}
