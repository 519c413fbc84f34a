import type { ThreadActivity } from '@agentlane/contract';
import type { EventStore, RunStore } from '@agentlane/store';

// What a thread list shows at a glance without opening each thread's stream (a browser holds at most six
// HTTP/1.1 connections per server): the contract's ThreadActivity, derived from the store's rows on each read.

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
