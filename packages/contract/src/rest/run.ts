import type { RunStatus } from '../delivery.js';
import type { JsonObject } from '../json.js';

/**
 * How a settled run's turn ended. `status` keeps the four lifecycle states; a run stopped by run.cancel ended as
 * asked, so it is status `completed` with outcome `cancelled` (its turn.completed says stopReason "cancelled"),
 * never a failure with an error string.
 */
export type RunOutcome = 'completed' | 'failed' | 'cancelled';

/** The `/runs` resource. */
export interface RunView {
  runId: string;
  threadId: string;
  parentRunId: string | null;
  status: RunStatus;
  prompt: string;
  options: JsonObject;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  error: string | null;
  /** Null until the run settles. */
  outcome: RunOutcome | null;
  canonicalizedAt: string | null;
}
