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

/** The open thread's status from its own stream (the reducer's state), same vocabulary as the server's. */
export function statusFromState(state: TimelineState): ThreadStatus {
  if (openRequests(state).length > 0) return 'waiting';
  const active = activeRun(state);
  if (active) return active.status === 'queued' ? 'queued' : 'running';
  const runs = Object.values(state.runs);
  const last = runs[runs.length - 1];
  if (!last) return 'idle';
  return last.status === 'failed' ? 'failed' : 'done';
}
