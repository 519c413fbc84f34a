/**
 * The last deliverySeq this browser showed of each thread: the unread marker compares it with the
 * thread's head. A reading position of this browser, not a fact about the thread, so it lives here.
 */
const key = (threadId: string) => `agentlane.seen.${threadId}`;

export function lastSeen(threadId: string): number {
  try {
    return Number(window.localStorage.getItem(key(threadId)) ?? 0) || 0;
  } catch {
    return 0;
  }
}

export function markSeen(threadId: string, deliverySeq: number): void {
  try {
    if (deliverySeq > lastSeen(threadId)) window.localStorage.setItem(key(threadId), String(deliverySeq));
  } catch {
    // Storage disabled: every thread with events just stays marked unread.
  }
}
