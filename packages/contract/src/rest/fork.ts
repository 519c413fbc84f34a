import type { StageId } from '../checkpoint.js';
import type { SessionView } from './session.js';

/**
 * Where a forked thread's history comes from (its `metadata.forkedFrom`). The history is the origin thread's
 * events delivered by `headSeq` that were first received at or before `at` (their envelope's `ts`), and when
 * the checkpoint closed its turn (stage `post-turn`) the rest of run `runId` too (the turn's totals and its
 * end come after its last checkpoint). A reader shows them before the new thread's own events; nothing is
 * copied: they stay the origin's.
 */
export interface ForkedFrom {
  threadId: string;
  /** The origin checkpoint a checkpoint fork continues from; absent for a native fork after a run. */
  checkpointId?: string;
  /** The stage the checkpoint was taken at; `post-turn` for a native fork (after its run's turn). */
  stageId: StageId;
  /** The checkpoint's createdAt, or when the run a native fork follows ended: the cut in the origin's events. */
  at: string;
  /**
   * The origin's run the checkpoint was taken in (null when none was: a fork's copy, taken before any run),
   * or the run a native fork follows.
   */
  runId: string | null;
  /** The origin's head deliverySeq when it was forked: reading it further is not needed. */
  headSeq: number;
}

/**
 * `POST /sessions/:id/fork` names one fork point: one of the session's root checkpoints (engines whose state
 * is in agentlane's checkpoints) or a finished run, forked after its turn by the engine itself (engines
 * that fork their own sessions; some only after the latest run).
 */
export interface ForkRequest {
  /** Exactly one of checkpointId and runId. */
  checkpointId?: string;
  runId?: string;
  title?: string;
}

/** The 201 answer of `POST /sessions/:id/fork`. */
export interface ForkReply {
  session: SessionView;
  forkedFrom: ForkedFrom;
  /** The new thread's own copy of the checkpoint (checkpoint forks): its first run starts from this state. */
  checkpointId?: string;
}
