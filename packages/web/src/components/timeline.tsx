import type { TimelineView } from '@agentlane/client';
import { forwardRef, useImperativeHandle, useLayoutEffect, useRef } from 'react';
import { VList, type VListHandle } from 'virtua';
import type { ForkSegment } from '../use-fork-history';
import { ownRowIndex, rowKey } from './display-rows';
import { TimelineRow } from './timeline-row';
import { useTimelineRows } from './use-timeline-rows';

const BOTTOM_SLACK_PX = 48;
const NO_HISTORY: readonly ForkSegment[] = [];

export interface TimelineHandle {
  jumpTo(key: string): void;
}

/**
 * The virtualized thread: only visible rows are mounted, and the view sticks to the bottom while new
 * rows arrive unless the user scrolled up.
 */
export interface TimelineProps {
  view: TimelineView;
  threadId: string;
  /** Opens the inspector on a row (its items' keys and a label); stable across renders. */
  onInspect?(itemKeys: string[], label: string): void;
  /** Opens a file's diff history in the thread; stable across renders. */
  onFileHistory?(path: string): void;
  /** A forked thread's history (the origins' rows up to each cut), shown read-only before its own rows. */
  history?: readonly ForkSegment[];
}

export const Timeline = forwardRef<TimelineHandle, TimelineProps>(function Timeline(
  { view, threadId, onInspect, onFileHistory, history = NO_HISTORY },
  ref,
) {
  const list = useRef<VListHandle>(null);
  const atBottom = useRef(true);
  const lastOffset = useRef(0);
  const userInputAt = useRef(0);
  const markUserInput = () => {
    userInputAt.current = performance.now();
  };
  const { rows, contextOf } = useTimelineRows({ view, threadId, history, onInspect, onFileHistory });

  useImperativeHandle(ref, () => ({
    jumpTo(key: string) {
      const index = ownRowIndex(rows, key);
      if (index >= 0) {
        atBottom.current = false;
        list.current?.scrollToIndex(index, { align: 'start' });
      }
    },
  }));

  useLayoutEffect(() => {
    if (!atBottom.current || rows.length === 0) return;
    list.current?.scrollToIndex(rows.length - 1, { align: 'end' });
    // Rows are measured after they mount and may grow; follow them once more on the next frame.
    const frame = requestAnimationFrame(() => {
      if (atBottom.current) list.current?.scrollToIndex(rows.length - 1, { align: 'end' });
    });
    return () => cancelAnimationFrame(frame);
  }, [rows]);

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: only notes that the user is scrolling; the list inside stays the interactive element
    <div
      className="timeline-frame"
      onWheel={markUserInput}
      onTouchMove={markUserInput}
      onPointerDown={markUserInput}
      onKeyDown={markUserInput}
    >
      <VList
        ref={list}
        className="timeline"
        data={rows}
        role="log"
        aria-label="Thread timeline"
        onScroll={(offset) => {
          const handle = list.current;
          if (!handle) return;
          // Only the user scrolling up leaves the bottom; rows being measured or growing under us do not.
          if (offset + handle.viewportSize >= handle.scrollSize - BOTTOM_SLACK_PX) atBottom.current = true;
          else if (offset < lastOffset.current - 2 && performance.now() - userInputAt.current < 500) {
            atBottom.current = false;
          }
          lastOffset.current = offset;
        }}
      >
        {(row) => <TimelineRow key={rowKey(row)} row={row} context={contextOf(row)} />}
      </VList>
    </div>
  );
});
