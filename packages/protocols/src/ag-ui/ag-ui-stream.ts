import { type Event, EventType } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import type { ServerContext } from '@agentlane/server';
import type { RunRecord } from '@agentlane/store';
import type { FastifyReply } from 'fastify';
import { followRun, PAUSE_GRACE_MS, type RunFollower } from '../run-follower.js';
import { readRowsByRun, readRunRows } from '../run-rows.js';
import { SseOut, type StreamRegistry } from '../sse-out.js';
import { AgUiTranslator } from './ag-ui-translator.js';
import type { StreamPosition } from './event-id.js';

/** The run option holding the id the AG-UI client gave its user message (the run's prompt). */
export const AG_UI_USER_MESSAGE_OPTION = 'agUiUserMessageId';
/** The run option holding the AG-UI runId that started the run (its idempotency key within the thread). */
export const AG_UI_RUN_OPTION = 'agUiRunId';

/** Terminal events sort after every event of the row they follow. */
const TERMINAL = 1_000_000;

export interface AgUiStreamInput {
  /** The AG-UI thread and run ids the client sent (echoed on RUN_STARTED / RUN_FINISHED). */
  threadId: string;
  runId: string;
  agentlaneThreadId: string;
  /** The agentlane run the stream follows; null when nothing runs (a snapshot, then RUN_FINISHED). */
  run: RunRecord | null;
  /** The snapshot holds the thread up to this row; the stream follows the run after it. */
  snapshotAt: number;
  /** A reconnect (Last-Event-ID): events up to this position were received already. */
  resumeAfter?: StreamPosition;
}

/**
 * One AG-UI run as SSE: RUN_STARTED, MESSAGES_SNAPSHOT and STATE_SNAPSHOT of the thread up to the snapshot
 * row, the followed run's events after it, then RUN_FINISHED (success, cancelled, or interrupt when the run
 * waits on an approval or a question once live that nobody answered within PAUSE_GRACE_MS) or RUN_ERROR. Every frame's `id:` is
 * `<snapshot>-<row>-<index>`: the same request with that Last-Event-ID regenerates the same events from the
 * store and sends only those after it, so a reconnect has no gap and no duplicate.
 */
export async function streamRunAsAgUi(
  ctx: ServerContext,
  registry: StreamRegistry,
  reply: FastifyReply,
  input: AgUiStreamInput,
): Promise<void> {
  const { threadId: agThread, runId: agRun, run, snapshotAt } = input;
  const translator = await seedTranslator(ctx, input.agentlaneThreadId, run?.runId ?? null, snapshotAt);
  const encoder = new EventEncoder();
  const out = new SseOut(reply, { 'content-type': encoder.getContentType() }, ctx, registry);
  const after = input.resumeAfter;
  let lastRow = snapshotAt;
  const send = (events: Event[], row: number, base = 0): void => {
    let text = '';
    events.forEach((event, i) => {
      const k = base + i;
      if (after && (row < after.row || (row === after.row && k <= after.index))) return;
      text += `id: ${snapshotAt}-${row}-${k}\n${encoder.encodeSSE(event)}`;
    });
    out.write(text);
  };
  const end = (terminal: Event): void => {
    if (out.closed) return;
    send([...translator.close(), terminal], lastRow, TERMINAL);
    out.end();
  };

  send(
    [
      { type: EventType.RUN_STARTED, threadId: agThread, runId: agRun, protocolVersion: '1.0' },
      { type: EventType.MESSAGES_SNAPSHOT, messages: translator.messages.snapshot() },
      { type: EventType.STATE_SNAPSHOT, snapshot: structuredClone(translator.state) },
    ],
    snapshotAt,
  );
  const finished = (outcome?: 'cancelled'): Event => ({
    type: EventType.RUN_FINISHED,
    threadId: agThread,
    runId: agRun,
    outcome: outcome ? { type: outcome } : { type: 'success' },
  });
  if (!run) {
    end(finished());
    return;
  }

  let follower: RunFollower | undefined;
  let live = false;
  let check: NodeJS.Timeout | undefined;
  // A request still unanswered PAUSE_GRACE_MS after the last row ends the run as an interrupt.
  const checkInterrupt = (): void => {
    clearTimeout(check);
    check = setTimeout(() => {
      const interrupts = translator.pendingInterrupts;
      if (!live || interrupts.length === 0) return;
      end({
        type: EventType.RUN_FINISHED,
        threadId: agThread,
        runId: agRun,
        outcome: { type: 'interrupt', interrupts },
      });
    }, PAUSE_GRACE_MS);
  };
  out.onClose(() => {
    clearTimeout(check);
    follower?.close();
  });
  try {
    follower = await followRun(ctx, run.threadId, run.runId, snapshotAt, {
      onRow: (row) => {
        lastRow = row.deliverySeq;
        send(translator.push(row.event), row.deliverySeq);
        if (live) checkInterrupt();
      },
      onCaughtUp: () => {
        live = true;
        checkInterrupt();
      },
      onSettled: (status, error) => {
        clearTimeout(check);
        if (status === 'failed') {
          end({ type: EventType.RUN_ERROR, message: error ?? 'the run failed', code: 'run_failed' });
        } else {
          end(finished(translator.stopReason === 'cancelled' ? 'cancelled' : undefined));
        }
      },
    });
    if (out.closed) follower.close();
  } catch (err) {
    reply.log.error({ err }, 'ag-ui stream failed');
    end({
      type: EventType.RUN_ERROR,
      message: 'the stream failed; retry the request',
      code: 'stream_failed',
    });
  }
}

/** The frames one row of a stream holds: its events, and (at the row the stream ends at) its closing ones. */
export interface RowFrames {
  /** Frames `<snapshot>-<row>-0` … `-<events - 1>`. */
  events: number;
  /** Frames `<snapshot>-<row>-<TERMINAL>` … : what is open closed, then the terminal event. */
  closing: number;
}

/**
 * The frames of `row` in the stream of `followed` (null: no run) snapshotted at `snapshotAt`, derived the way
 * streamRunAsAgUi derives them: the snapshot row has the three opening frames, a later row the events its
 * run's rows up to it translate to. Undefined when the row is no frame's row of that stream (a row of
 * another run, or a row after the snapshot of a stream that follows none).
 */
export async function framesOfRow(
  ctx: ServerContext,
  threadId: string,
  followed: string | null,
  snapshotAt: number,
  row: number,
): Promise<RowFrames | undefined> {
  const translator = await seedTranslator(ctx, threadId, followed, snapshotAt);
  if (row === snapshotAt) return { events: 3, closing: translator.close().length + 1 };
  if (followed === null || row < snapshotAt) return undefined;
  let events: number | undefined;
  for (const r of await readRunRows(ctx.store, threadId, followed, row)) {
    if (r.deliverySeq <= snapshotAt) continue;
    const out = translator.push(r.event);
    if (r.deliverySeq === row) events = out.length;
  }
  return events === undefined ? undefined : { events, closing: translator.close().length + 1 };
}

/** Whether frame `index` of a row is one of its frames (an event, or one closing the stream there). */
export function isFrameIndex(frames: RowFrames, index: number): boolean {
  return index < frames.events || (index >= TERMINAL && index < TERMINAL + frames.closing);
}

/**
 * The thread's messages and state up to `snapshotAt`: per run (up to the followed one) its prompt, then its
 * rows. Nothing is sent from here; the followed run's rows after the snapshot continue from this state.
 */
async function seedTranslator(
  ctx: ServerContext,
  threadId: string,
  followed: string | null,
  snapshotAt: number,
): Promise<AgUiTranslator> {
  const translator = new AgUiTranslator();
  const rowsByRun = await readRowsByRun(ctx.store, threadId, snapshotAt);
  for (const r of await ctx.store.listRuns(threadId)) {
    const clientId = r.options[AG_UI_USER_MESSAGE_OPTION];
    translator.addUserMessage(typeof clientId === 'string' ? clientId : `user-${r.runId}`, r.prompt);
    for (const row of rowsByRun.get(r.runId) ?? []) translator.push(row.event);
    translator.forgetOpen();
    if (r.runId === followed) break;
    // Requests of an earlier run can no longer be answered: only the followed run's interrupt the stream.
    translator.dropPending();
  }
  return translator;
}
