import { useEffect, useState } from 'react';
import { client } from '../api';
import type { NativeFrame } from './frames-match';

export interface FramesFeed {
  frames: NativeFrame[];
  loading: boolean;
  error?: string;
}

/** Every native frame of a run, page after page (1,000 each); read again when `version` changes. */
export function useFrames(threadId: string, runId: string | undefined, version: string): FramesFeed {
  const [feed, setFeed] = useState<FramesFeed>({ frames: [], loading: true });
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` asks for a new read
  useEffect(() => {
    if (!runId) {
      setFeed({ frames: [], loading: false });
      return;
    }
    const controller = new AbortController();
    setFeed({ frames: [], loading: true });
    (async () => {
      let frames: NativeFrame[] = [];
      let after: number | null = 0;
      try {
        while (after !== null) {
          const page = await client.listFrames(
            threadId,
            runId,
            { after, limit: 1000 },
            { signal: controller.signal },
          );
          frames = frames.concat(page.frames);
          after = page.nextAfter;
          setFeed({ frames, loading: after !== null });
        }
      } catch (e) {
        if (!controller.signal.aborted)
          setFeed({ frames, loading: false, error: e instanceof Error ? e.message : String(e) });
      }
    })();
    return () => controller.abort();
  }, [threadId, runId, version]);
  return feed;
}
