import type { RunAgentInput } from '@ag-ui/core';
import { HttpError, type Principal, quote, type ServerContext } from '@agentlane/server';
import type { RunRecord, ThreadRecord } from '@agentlane/store';
import { newestActiveRun } from '../active-run.js';
import { readRunRows } from '../run-rows.js';
import { answerResume, resumedRunId } from './ag-ui-resume.js';
import { AG_UI_RUN_OPTION, framesOfRow, isFrameIndex } from './ag-ui-stream.js';
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
 * interrupts' run, and a request with neither follows the run of the id. An id that is no frame of that
 * run's stream (a frame of another run, a snapshot row the stream cannot have, an index its row never had)
 * is refused before anything is answered.
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
  const run = named === undefined ? null : await ctx.store.getRun(named);
  await assertFrameOf(ctx, thread.threadId, run, r);
  // An identical repeat of answers is a no-op.
  if (input.resume && input.resume.length > 0)
    return answerResume(ctx, principal, thread.threadId, input.resume);
  return run;
}

/**
 * The id is a frame the stream of `run` (null: a stream that followed no run) sent: a stream started by the
 * request's user message (the POST that created the run, or the same POST again) is snapshotted before the
 * run's first row, and the id's row and index are re-derived from the store as that stream derives them.
 */
async function assertFrameOf(
  ctx: ServerContext,
  threadId: string,
  run: RunRecord | null,
  r: Reconnect,
): Promise<void> {
  const { snapshotAt, row, index } = r.at;
  if (row < snapshotAt)
    throw new HttpError(
      'invalid_request',
      `Last-Event-ID names row ${row}, before its stream's snapshot row ${snapshotAt}: no frame has that id`,
      FIELD,
    );
  const resumes = r.input.resume !== undefined && r.input.resume.length > 0;
  if (run && r.prompted && !resumes) {
    const [first] = await readRunRows(ctx.store, threadId, run.runId, snapshotAt);
    if (first)
      throw new HttpError(
        'invalid_request',
        `Last-Event-ID's snapshot row ${snapshotAt} is not that of a stream of runId ${quote(r.input.runId)}: its stream is snapshotted before the run's first row ${first.deliverySeq}`,
        FIELD,
      );
  }
  const frames = await framesOfRow(ctx, threadId, run?.runId ?? null, snapshotAt, row);
  if (frames && isFrameIndex(frames, index)) return;
  const why = !frames
    ? `row ${row} is no row of the run it follows`
    : `index ${index} is none of the ${frames.events} frame${frames.events === 1 ? '' : 's'} of row ${row} nor one ending the stream there`;
  throw new HttpError(
    'invalid_request',
    `Last-Event-ID ${snapshotAt}-${row}-${index} is no frame of this stream: ${why}`,
    FIELD,
  );
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
  if (input.resume && input.resume.length > 0) {
    const resumed = await resumedRunId(ctx, thread.threadId, input.resume);
    if (resumed === undefined)
      throw new HttpError(
        'invalid_request',
        `no interrupt ${quote(input.resume[0]?.interruptId ?? '')} in this thread`,
        'body.resume[0].interruptId',
      );
    return resumed;
  }
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
