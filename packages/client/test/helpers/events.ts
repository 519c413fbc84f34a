import { StreamFrames } from '../../src/testing/stream-frames';

/** Delivered StreamEvents of one thread for the reducer and subscription tests. */
export class ThreadBuilder extends StreamFrames {
  constructor(threadId = 'th1', runId = 'run1', turnId = 'turn1') {
    super({ threadId, runId, turnId });
  }

  canonicalize(status: 'completed' | 'failed' = 'completed') {
    return this.canonicalized(status);
  }
}

export function startedSession(b: ThreadBuilder, flags: Partial<Record<string, boolean>> = {}) {
  return b.sessionStarted(flags);
}
