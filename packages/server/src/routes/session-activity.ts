import type { EventStore, RunStore } from '@agentlane/store';
import { Type } from 'typebox';

/**
 * What a thread list shows at a glance without opening each thread's stream (a browser holds at most six
 * HTTP/1.1 connections per server): the state of the thread's latest run, whether it waits on the user,
 * the first prompt (a title for threads the engine never named) and the thread's head deliverySeq (an
 * unread marker compares it with the last one a client saw). Derived from the store's rows on each read.
 */
export const ThreadActivitySchema = Type.Object({
  status: Type.Enum(['idle', 'queued', 'running', 'waiting', 'failed', 'done'], {
    description: "The latest run: 'waiting' while it has an unanswered approval or question.",
  }),
  runId: Type.Union([Type.String(), Type.Null()]),
  firstPrompt: Type.Union([Type.String(), Type.Null()]),
  headSeq: Type.Integer({ description: "The thread's latest deliverySeq (0 before any event)." }),
});

export type ThreadActivity = {
  status: 'idle' | 'queued' | 'running' | 'waiting' | 'failed' | 'done';
  runId: string | null;
  firstPrompt: string | null;
  headSeq: number;
};

const OPENS: Record<string, string> = {
  'approval.requested': 'approvalId',
  'question.requested': 'questionId',
};
const CLOSES: Record<string, string> = {
  'approval.resolved': 'approvalId',
  'question.resolved': 'questionId',
};

/** True when a run has an approval or question without its resolution. */
async function waitsOnUser(store: EventStore, threadId: string, runId: string): Promise<boolean> {
  const open = new Set<string>();
  for (const row of await store.latestEvents({ threadId, runId })) {
    const payload = row.event.payload as unknown as Record<string, unknown>;
    const opens = OPENS[row.kind];
    const closes = CLOSES[row.kind];
    if (opens) open.add(`${row.kind.split('.')[0]}:${String(payload[opens])}`);
    if (closes) open.delete(`${row.kind.split('.')[0]}:${String(payload[closes])}`);
  }
  return open.size > 0;
}

export async function threadActivity(
  store: RunStore & EventStore,
  threadId: string,
): Promise<ThreadActivity> {
  const [runs, headSeq] = await Promise.all([store.listRuns(threadId), store.headDeliverySeq(threadId)]);
  const first = runs[0];
  const last = runs.at(-1);
  let status: ThreadActivity['status'] = 'idle';
  if (last) {
    switch (last.status) {
      case 'queued':
        status = 'queued';
        break;
      case 'running':
        status = (await waitsOnUser(store, threadId, last.runId)) ? 'waiting' : 'running';
        break;
      case 'failed':
        status = 'failed';
        break;
      case 'completed':
        status = last.outcome === 'failed' ? 'failed' : 'done';
        break;
    }
  }
  return { status, runId: last?.runId ?? null, firstPrompt: first?.prompt ?? null, headSeq };
}
