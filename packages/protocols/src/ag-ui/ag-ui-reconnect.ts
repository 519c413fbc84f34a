import type { RunAgentInput } from '@ag-ui/core';
import { HttpError, type Principal, type ServerContext } from '@agentlane/server';
import type { RunRecord, ThreadRecord } from '@agentlane/store';
import { newestActiveRun } from '../active-run.js';
import { answerResume, resumedRunId } from './ag-ui-resume.js';
import { AG_UI_RUN_OPTION } from './ag-ui-stream.js';
import type { StreamPosition } from './event-id.js';

export interface Reconnect {
  thread: ThreadRecord;
  input: RunAgentInput;
  /** The input ends with a user message with text (a request that starts a run when it is no reconnect). */
  prompted: boolean;
  at: StreamPosition;
}

const FIELD = 'headers.last-event-id';

/**
 * The run a request with a Last-Event-ID streams. The id resumes the stream it was sent in, so the request
 * starts no run: a user message's runId must name a run it started before, resume entries name their
 * interrupts' run, and a request with neither follows the run of the id. An id of a frame of another run
 * than the one the request names is refused before anything is answered.
 */
export async function reconnectedRun(
  ctx: ServerContext,
  principal: Principal,
  r: Reconnect,
): Promise<RunRecord | null> {
  const { thread, input } = r;
  const framed = await runOfFrame(ctx, thread.threadId, r.at);
  const named = await namedRunId(ctx, r, framed);
  if (framed !== undefined && named !== undefined && named !== framed) {
    const theirs = (await ctx.store.getRun(framed))?.options[AG_UI_RUN_OPTION];
    const which = typeof theirs === 'string' ? ` (runId ${theirs})` : '';
    throw new HttpError(
      'invalid_request',
      `Last-Event-ID is a frame of another run of this thread${which}, not of the run this request names; it resumes only the run it was sent in`,
      FIELD,
    );
  }
  // An identical repeat of answers is a no-op; an unknown interrupt is refused here, with its field.
  if (input.resume && input.resume.length > 0)
    return answerResume(ctx, principal, thread.threadId, input.resume);
  return named === undefined ? null : ctx.store.getRun(named);
}

/** The agentlane run of the frame the id names: its row's run; a stream's opening frames name none. */
async function runOfFrame(
  ctx: ServerContext,
  threadId: string,
  at: StreamPosition,
): Promise<string | undefined> {
  if (at.row <= at.snapshotAt) return undefined;
  const [row] = await ctx.store.readEvents(threadId, at.row - 1, 1);
  return row?.deliverySeq === at.row ? row.runId : undefined;
}

/** The agentlane run the request names (see reconnectedRun); a runId that started none is refused. */
async function namedRunId(
  ctx: ServerContext,
  r: Reconnect,
  framed: string | undefined,
): Promise<string | undefined> {
  const { thread, input } = r;
  if (input.resume && input.resume.length > 0) return resumedRunId(ctx, thread.threadId, input.resume);
  if (!r.prompted) return framed ?? (await newestActiveRun(ctx.store, thread.threadId))?.runId;
  const started = (await ctx.store.listRuns(thread.threadId)).find(
    (run) => run.options[AG_UI_RUN_OPTION] === input.runId,
  );
  if (!started)
    throw new HttpError(
      'invalid_request',
      `Last-Event-ID resumes a stream, but runId ${input.runId} started no run in this thread (post without Last-Event-ID to start it)`,
      FIELD,
    );
  return started.runId;
}
