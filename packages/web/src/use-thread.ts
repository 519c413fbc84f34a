import {
  type ConnectionState,
  initialTimelineState,
  reduceTimelineBatch,
  type TimelineState,
} from '@agentlane/client';
import type { StreamEvent } from '@agentlane/contract';
import { useEffect, useState } from 'react';
import { client } from './api';

const CACHE_LIMIT_CHARS = 3_000_000;
const cacheKey = (threadId: string) => `agentlane.thread.${threadId}`;

/**
 * The frames this tab already received, kept in sessionStorage so a reload resumes from its last
 * deliverySeq instead of replaying the thread. The state is always rebuilt by the reducer from frames:
 * the page keeps no truth of its own.
 */
function loadCache(threadId: string): { frames: StreamEvent[]; chars: number } {
  try {
    const raw = window.sessionStorage.getItem(cacheKey(threadId));
    return raw ? { frames: JSON.parse(raw) as StreamEvent[], chars: raw.length } : { frames: [], chars: 0 };
  } catch {
    return { frames: [], chars: 0 };
  }
}

function dropCache(threadId: string): void {
  try {
    window.sessionStorage.removeItem(cacheKey(threadId));
  } catch {
    // Storage disabled: nothing to drop.
  }
}

/** Saves the frames; false when they are over the limit (a thread only grows: it will stay over). */
function saveCache(threadId: string, frames: StreamEvent[]): boolean {
  try {
    const raw = JSON.stringify(frames);
    if (raw.length > CACHE_LIMIT_CHARS) {
      window.sessionStorage.removeItem(cacheKey(threadId));
      return false;
    }
    window.sessionStorage.setItem(cacheKey(threadId), raw);
  } catch {
    // Storage full or disabled: the next load replays from the server, which is just slower.
  }
  return true;
}

export interface ThreadFeed {
  state: TimelineState;
  connection: ConnectionState;
  error?: string;
}

/** Follows a thread: subscribes, batches arriving events per animation frame, and reduces them. */
export function useThread(threadId: string): ThreadFeed {
  const [feed, setFeed] = useState<ThreadFeed>(() => ({
    state: initialTimelineState(),
    connection: { status: 'connecting', after: 0 },
  }));

  useEffect(() => {
    const controller = new AbortController();
    const cached = loadCache(threadId);
    let frames: StreamEvent[] | undefined = cached.frames;
    // The frames' JSON size, counted as they arrive: a thread that outgrows the cache lets go of them
    // at once instead of holding 20,000 envelopes until the next save finds out.
    let chars = cached.chars;
    let state = reduceTimelineBatch(initialTimelineState(), frames);
    let pending: StreamEvent[] = [];
    let scheduled = false;
    let saveTimer: ReturnType<typeof setTimeout> | undefined;
    setFeed({ state, connection: { status: 'connecting', after: state.lastDeliverySeq } });

    const save = () => {
      clearTimeout(saveTimer);
      saveTimer = undefined;
      // A thread too long to cache (a long run, a 20,000-event thread) stops keeping its frames: they
      // were a second copy of every event's envelope, held only to be stringified and thrown away.
      if (frames && !saveCache(threadId, frames)) frames = undefined;
    };
    const flush = () => {
      if (!scheduled) return;
      scheduled = false;
      const batch = pending;
      pending = [];
      state = reduceTimelineBatch(state, batch);
      setFeed((previous) => ({ ...previous, state }));
      if (frames) saveTimer ??= setTimeout(save, 500);
    };
    const schedule = () => {
      if (scheduled) return;
      scheduled = true;
      requestAnimationFrame(flush);
      // Background tabs get no animation frames; keep the state moving anyway.
      setTimeout(flush, 250);
    };
    window.addEventListener('pagehide', save);

    (async () => {
      try {
        const events = client.subscribeThread(threadId, {
          after: state.lastDeliverySeq,
          signal: controller.signal,
          backoff: { initialMs: 300, maxMs: 10_000 },
          // A subscription this effect already aborted still reports "closed" as it winds down; it must
          // not overwrite the state of the one that replaced it (React re-runs effects in StrictMode).
          onState: (connection) => {
            if (!controller.signal.aborted) setFeed((previous) => ({ ...previous, connection }));
          },
        });
        for await (const event of events) {
          if (frames) {
            frames.push(event);
            chars += JSON.stringify(event).length + 1;
            if (chars > CACHE_LIMIT_CHARS) {
              frames = undefined;
              dropCache(threadId);
            }
          }
          pending.push(event);
          schedule();
        }
      } catch (error) {
        if (!controller.signal.aborted) {
          setFeed((previous) => ({
            ...previous,
            error: error instanceof Error ? error.message : String(error),
          }));
        }
      }
    })();

    return () => {
      controller.abort();
      window.removeEventListener('pagehide', save);
      flush();
      save();
    };
  }, [threadId]);

  return feed;
}
