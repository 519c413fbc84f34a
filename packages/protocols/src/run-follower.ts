import type { CanonicalStreamEvent, RunStatus } from '@agentlane/contract';
import type { ServerContext } from '@agentlane/server';

export interface FollowHooks {
  /** A row of the followed run, in deliverySeq order (the replay after the cursor, then live rows). */
  onRow(row: CanonicalStreamEvent): void;
  /** Once: every row committed when the subscription opened has been handed over (replay done). */
  onCaughtUp?(): void;
  /** Once: the run settled, after every row of it was handed over. */
  onSettled(status: RunStatus, error: string | null): void;
}

export interface RunFollower {
  /** The last thread row handed over (any run). */
  readonly cursor: number;
  readonly caughtUp: boolean;
  close(): void;
}

const SETTLED = new Set<RunStatus>(['completed', 'failed']);

/**
 * How long a live protocol stream waits, with a request still unanswered and no new row, before it ends the
 * stream to let its client answer (AI SDK `finish` tool-calls, AG-UI interrupt). A request answered at once by
 * someone else (another client, a policy, a replayed recording whose answer follows in a few ms) never
 * pauses the stream, which would leave the client holding a request that no longer waits and no way to get the
 * rest of the run. A person answering takes longer than this anyway.
 */
export const PAUSE_GRACE_MS = 250;

/**
 * Follows one run of a thread through the lane's subscription (no gap, no duplicate after `after`), for the
 * protocol streams. The run's end comes from its live status signal or, when the run settled before the
 * subscription heard it (signals are live only), from the stored run once the replay passed the head.
 */
export async function followRun(
  ctx: ServerContext,
  threadId: string,
  runId: string,
  after: number,
  hooks: FollowHooks,
): Promise<RunFollower> {
  let cursor = after;
  let head = Number.POSITIVE_INFINITY;
  let caughtUp = false;
  let settled = false;
  let closed = false;
  let subscription: { close(): void } | undefined;
  let settledBeforeCatchUp: { status: RunStatus; error: string | null } | undefined;

  const settle = (status: RunStatus, error: string | null): void => {
    if (settled || closed) return;
    if (!caughtUp) {
      settledBeforeCatchUp = { status, error };
      return;
    }
    settled = true;
    // The run's last rows may still be on their way from the hub: end after what is committed now.
    void ctx.store.headDeliverySeq(threadId).then(async (committed) => {
      const deadline = Date.now() + 2000;
      while (!closed && cursor < committed && Date.now() < deadline) await sleep(5);
      if (!closed) hooks.onSettled(status, error);
    });
  };
  const markCaughtUp = (): void => {
    if (caughtUp || closed) return;
    caughtUp = true;
    hooks.onCaughtUp?.();
    if (settledBeforeCatchUp) settle(settledBeforeCatchUp.status, settledBeforeCatchUp.error);
  };
  const settleFromStore = async (): Promise<void> => {
    const run = await ctx.store.getRun(runId);
    if (run && SETTLED.has(run.status)) settle(run.status, run.error);
  };

  subscription = await ctx.lane.subscribe(threadId, after, (event) => {
    if (closed) return;
    if (event.type === 'stream.opened') {
      head = event.headDeliverySeq;
      if (cursor >= head) markCaughtUp();
      return;
    }
    if ('event' in event) {
      cursor = Math.max(cursor, event.deliverySeq);
      if (event.event.runId === runId) hooks.onRow(event);
      if (cursor >= head) markCaughtUp();
      return;
    }
    if (event.type === 'run.status' && event.runId === runId && SETTLED.has(event.status)) {
      // The signal carries no error text: the stored run has it.
      void settleFromStore();
    } else if (event.type === 'run.canonicalized' && event.runId === runId) {
      void settleFromStore();
    }
  });
  if (closed) subscription.close();
  await settleFromStore();

  return {
    get cursor() {
      return cursor;
    },
    get caughtUp() {
      return caughtUp;
    },
    close() {
      closed = true;
      subscription?.close();
      subscription = undefined;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
