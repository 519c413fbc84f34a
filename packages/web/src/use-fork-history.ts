import {
  type ForkedFrom,
  forkedFromOf,
  initialTimelineState,
  readForkHistory,
  reduceTimelineBatch,
  type TimelineView,
} from '@agentlane/client';
import { useEffect, useState } from 'react';
import { client } from './api';
import { threadTitle } from './titles';

/** A fork of a fork of …: how far back the chain is followed (a cycle cannot be made, but stay bounded). */
const MAX_FORKS = 8;

/** One thread a fork continues: the cut, the origin's title, and its rows up to the cut. */
export interface ForkSegment {
  fork: ForkedFrom;
  title: string;
  /** The origin's root timeline of the events the fork continues (none when it has none). */
  view?: TimelineView;
  /** True while they are read. */
  loading: boolean;
  error?: string;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The forks this thread continues, nearest first: each origin's record read from its own session. */
async function forkChain(threadId: string, signal: AbortSignal): Promise<ForkSegment[]> {
  const chain: ForkSegment[] = [];
  const seen = new Set([threadId]);
  let next = forkedFromOf((await client.getSession(threadId, { signal })).metadata);
  while (next && !seen.has(next.threadId) && chain.length < MAX_FORKS) {
    const fork = next;
    seen.add(fork.threadId);
    try {
      const origin = await client.getSession(fork.threadId, { signal });
      chain.push({ fork, title: threadTitle(origin), loading: true });
      next = forkedFromOf(origin.metadata);
    } catch (e) {
      if (signal.aborted) throw e;
      chain.push({ fork, title: 'the thread it was forked from', loading: false, error: message(e) });
      break;
    }
  }
  return chain;
}

/** The origin's rows the fork continues, reduced like any thread's (the same reducer; nothing kept apart). */
async function segmentView(fork: ForkedFrom, signal: AbortSignal): Promise<TimelineView | undefined> {
  const events = await readForkHistory(client, fork, signal);
  return reduceTimelineBatch(initialTimelineState(), events).timelines[''];
}

/**
 * The history a forked thread continues (`metadata.forkedFrom`, the contract's ForkedFrom): the origin's
 * events up to the cut, and that origin's own history when it is a fork too; oldest first. Empty for a
 * thread that is not a fork. Read once per thread: the origin's events up to the cut do not change.
 */
export function useForkHistory(threadId: string): ForkSegment[] {
  const [segments, setSegments] = useState<ForkSegment[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    setSegments([]);
    (async () => {
      const chain = (await forkChain(threadId, signal)).reverse();
      setSegments(chain);
      const views = await Promise.all(
        chain.map(async (segment) => {
          if (segment.error) return segment;
          try {
            const view = await segmentView(segment.fork, signal);
            return { ...segment, loading: false, ...(view ? { view } : {}) };
          } catch (e) {
            return { ...segment, loading: false, error: message(e) };
          }
        }),
      );
      if (!signal.aborted) setSegments(views);
    })().catch(() => {
      // Not readable (the thread itself is gone, or this effect was left): no history to show.
    });
    return () => controller.abort();
  }, [threadId]);
  return segments;
}
