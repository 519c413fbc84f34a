import type { NegotiatedCapabilities } from '../capabilities.js';
import type { JsonObject } from '../json.js';

/** The thread list's status of a thread: its latest run, 'waiting' while that run waits on the user. */
export const THREAD_ACTIVITY_STATUSES = ['idle', 'queued', 'running', 'waiting', 'failed', 'done'] as const;
export type ThreadActivityStatus = (typeof THREAD_ACTIVITY_STATUSES)[number];

/** The latest run's state ('waiting' = an unanswered approval or question), first prompt, head deliverySeq. */
export interface ThreadActivity {
  status: ThreadActivityStatus;
  runId: string | null;
  firstPrompt: string | null;
  /** The thread's latest deliverySeq (0 before any event). */
  headSeq: number;
}

/** The `/sessions` resource: a thread plus its harness session (one per thread; `id` is the thread id). */
export interface SessionView {
  id: string;
  /** The configured engine the thread runs on (an open string). */
  engine: string;
  title: string | null;
  workDir: string | null;
  metadata: JsonObject;
  createdAt: string;
  updatedAt: string;
  provider: string | null;
  nativeSessionId: string | null;
  protocolVersion: string | null;
  capabilities: NegotiatedCapabilities;
  generation: number;
  /** In list and read replies: the thread at a glance. */
  activity?: ThreadActivity;
}
