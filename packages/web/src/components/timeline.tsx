import type { TimelineItem, TimelineView } from '@agentlane/client';
import {
  forwardRef,
  useCallback,
  useImperativeHandle,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { VList, type VListHandle } from 'virtua';
import { type DisplayRow, type RowContext, TimelineRow } from './timeline-row';

const QUIET_KINDS = new Set(['read', 'search', 'think', 'fetch']);
const BOTTOM_SLACK_PX = 48;

function isQuietTool(item: TimelineItem): boolean {
  return item.type === 'tool' && QUIET_KINDS.has(item.kind) && item.status !== 'failed';
}

/** Folds turns the user collapsed and groups runs of quiet tools into one row. */
export function displayRows(items: TimelineItem[], folded: ReadonlySet<string>): DisplayRow[] {
  const rows: DisplayRow[] = [];
  let group: TimelineItem[] = [];
  const flush = () => {
    if (group.length === 1) rows.push({ kind: 'item', item: group[0]! });
    else if (group.length > 1) rows.push({ kind: 'group', key: `group:${group[0]!.key}`, items: group });
    group = [];
  };
  for (const item of items) {
    if (item.type !== 'turn' && folded.has(item.turnId)) continue;
    if (isQuietTool(item) && (group.length === 0 || group[0]!.turnId === item.turnId)) {
      group.push(item);
      continue;
    }
    flush();
    if (isQuietTool(item)) group.push(item);
    else rows.push({ kind: 'item', item });
  }
  flush();
  return rows;
}

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
}

export const Timeline = forwardRef<TimelineHandle, TimelineProps>(function Timeline(
  { view, threadId, onInspect, onFileHistory },
  ref,
) {
  const [folded, setFolded] = useState<ReadonlySet<string>>(new Set());
  const list = useRef<VListHandle>(null);
  const atBottom = useRef(true);
  const lastOffset = useRef(0);
  const userInputAt = useRef(0);
  const markUserInput = () => {
    userInputAt.current = performance.now();
  };
  const rows = useMemo(() => displayRows(view.items, folded), [view.items, folded]);
  const turnsWithUserMessage = useMemo(
    () => new Set(view.items.filter((i) => i.type === 'message' && i.role === 'user').map((i) => i.turnId)),
    [view.items],
  );
  const toggleFold = useCallback(
    (turnId: string) =>
      setFolded((current) => {
        const next = new Set(current);
        if (next.has(turnId)) next.delete(turnId);
        else next.add(turnId);
        return next;
      }),
    [],
  );
  // One object per change of its parts: memoized rows compare it by identity, so a scroll (which
  // re-renders the list's visible items) does not re-render the rows themselves.
  const context = useMemo<RowContext>(
    () => ({
      threadId,
      turnUsage: view.usage.turns,
      folded,
      turnsWithUserMessage,
      toggleFold,
      ...(onInspect ? { onInspect } : {}),
      ...(onFileHistory ? { onFileHistory } : {}),
    }),
    [threadId, view.usage.turns, folded, turnsWithUserMessage, toggleFold, onInspect, onFileHistory],
  );

  useImperativeHandle(ref, () => ({
    jumpTo(key: string) {
      const index = rows.findIndex((row) =>
        row.kind === 'item' ? row.item.key === key : row.items.some((item) => item.key === key),
      );
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
        {(row) => (
          <TimelineRow key={row.kind === 'item' ? row.item.key : row.key} row={row} context={context} />
        )}
      </VList>
    </div>
  );
});
