import { createContext, useContext, useEffect } from 'react';
import { markSeen } from './seen';
import type { ThreadStatus } from './thread-status';

/** What the open thread's stream says about it, for the sidebar to show before the next list poll. */
export interface LiveThread {
  threadId: string;
  /** Undefined while the stream has seen no run of the thread (the server's activity then says it). */
  status: ThreadStatus | undefined;
  engineTitle?: string;
  lastDeliverySeq: number;
}

export interface LiveThreadSlot {
  live: LiveThread | undefined;
  publish(live: LiveThread | undefined): void;
  /** Asks the thread list to read again now (after a rename, a new thread). */
  refresh(): void;
  refreshes: number;
}

export const LiveThreadContext = createContext<LiveThreadSlot>({
  live: undefined,
  publish: () => {},
  refresh: () => {},
  refreshes: 0,
});

export const useLiveThread = () => useContext(LiveThreadContext);

/**
 * While a thread is open: the sidebar shows its status from its stream (until the view closes), and this
 * browser has now seen its rows.
 */
export function usePublishThread({ threadId, status, engineTitle, lastDeliverySeq }: LiveThread): void {
  const { publish } = useLiveThread();
  useEffect(() => {
    publish({ threadId, status, lastDeliverySeq, ...(engineTitle ? { engineTitle } : {}) });
    markSeen(threadId, lastDeliverySeq);
  }, [publish, threadId, status, engineTitle, lastDeliverySeq]);
  useEffect(() => () => publish(undefined), [publish]);
}
