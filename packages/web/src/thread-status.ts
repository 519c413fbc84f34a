import { activeRun, openRequests, type ThreadActivity, type TimelineState } from '@agentlane/client';

export type ThreadStatus = ThreadActivity['status'];

export const STATUS_LABEL: Record<ThreadStatus, string> = {
  idle: 'new',
  queued: 'queued',
  running: 'running',
  waiting: 'waiting on you',
  failed: 'failed',
  done: 'done',
};

/**
 * The open thread's status from its own stream (the reducer's state), same vocabulary as the server's; or
 * undefined when the stream does not know it. Runs are known only from the live `run.status` /
 * `run.canonicalized` events: a replay of a thread whose runs settled before it was opened carries neither,
 * so "no run seen" does not mean "new" (the server's activity says what it is).
 */
export function statusFromState(state: TimelineState): ThreadStatus | undefined {
  if (openRequests(state).length > 0) return 'waiting';
  const active = activeRun(state);
  if (active) return active.status === 'queued' ? 'queued' : 'running';
  const runs = Object.values(state.runs);
  const last = runs[runs.length - 1];
  if (!last) return undefined;
  return last.status === 'failed' ? 'failed' : 'done';
}

/** A sidebar row's status: the open thread's stream where it knows one (it is fresher), else the server's. */
export function rowStatus(live: ThreadStatus | undefined, server: ThreadStatus | undefined): ThreadStatus {
  return live ?? server ?? 'idle';
}
