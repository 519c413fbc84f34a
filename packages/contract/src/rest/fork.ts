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
  checkpointId: string;
  /** The stage the checkpoint was taken at. */
  stageId: StageId;
  /** The checkpoint's createdAt: the cut in the origin's events. */
  at: string;
  /** The origin's run the checkpoint was taken in; null when none was (a fork's copy, taken before any run). */
  runId: string | null;
  /** The origin's head deliverySeq when it was forked: reading it further is not needed. */
  headSeq: number;
}

/** `POST /sessions/:id/fork`: continue from one of the session's root checkpoints in a new thread. */
export interface ForkRequest {
  checkpointId: string;
  title?: string;
}

/** The 201 answer of `POST /sessions/:id/fork`. */
export interface ForkReply {
  session: SessionView;
  forkedFrom: ForkedFrom;
  /** The new thread's own copy of the checkpoint: its first run starts from this state. */
  checkpointId: string;
}
