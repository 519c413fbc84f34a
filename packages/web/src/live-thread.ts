import { createContext, useContext } from 'react';
import type { ThreadStatus } from './thread-status';

/** What the open thread's stream says about it, for the sidebar to show before the next list poll. */
export interface LiveThread {
  threadId: string;
  status: ThreadStatus;
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
