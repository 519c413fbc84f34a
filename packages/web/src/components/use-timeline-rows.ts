import type { TimelineItem, TimelineView } from '@agentlane/client';
import { useCallback, useMemo, useState } from 'react';
import { offloadedTexts } from '../message-text';
import type { ForkSegment } from '../use-fork-history';
import { type DisplayRow, displayRows, historyRows, type RowContext } from './display-rows';

/** Turns that have a user message of their own (their header then does not repeat the prompt). */
function turnsWithUserMessageOf(items: readonly TimelineItem[]): ReadonlySet<string> {
  return new Set(items.filter((i) => i.type === 'message' && i.role === 'user').map((i) => i.turnId));
}

export interface TimelineRowsInput {
  view: TimelineView;
  threadId: string;
  history: readonly ForkSegment[];
  onInspect?: ((itemKeys: string[], label: string) => void) | undefined;
  onFileHistory?: ((path: string) => void) | undefined;
}

/**
 * The timeline's rows (a fork's history, then the thread's own, with the turns the user folded left out)
 * and the context each row renders with.
 */
export function useTimelineRows({ view, threadId, history, onInspect, onFileHistory }: TimelineRowsInput): {
  rows: DisplayRow[];
  contextOf(row: DisplayRow): RowContext;
} {
  const [folded, setFolded] = useState<ReadonlySet<string>>(new Set());
  const rows = useMemo(
    () => [...historyRows(history, folded), ...displayRows(view.items, folded)],
    [history, view.items, folded],
  );
  const turnsWithUserMessage = useMemo(() => turnsWithUserMessageOf(view.items), [view.items]);
  const offloaded = useMemo(() => offloadedTexts(view.items), [view.items]);
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
      offloadedTexts: offloaded,
      ...(onInspect ? { onInspect } : {}),
      ...(onFileHistory ? { onFileHistory } : {}),
    }),
    [
      threadId,
      view.usage.turns,
      folded,
      turnsWithUserMessage,
      toggleFold,
      offloaded,
      onInspect,
      onFileHistory,
    ],
  );
  // Each origin's rows read as that thread's, and nothing in them is answered or inspected from here.
  const historyContexts = useMemo(
    () =>
      history.map(
        (segment): RowContext => ({
          threadId: segment.fork.threadId,
          turnUsage: segment.view?.usage.turns ?? {},
          folded,
          turnsWithUserMessage: turnsWithUserMessageOf(segment.view?.items ?? []),
          toggleFold,
          offloadedTexts: offloadedTexts(segment.view?.items ?? []),
          readOnly: true,
        }),
      ),
    [history, folded, toggleFold],
  );
  const contextOf = useCallback(
    (row: DisplayRow) =>
      row.kind !== 'fork' && row.segment !== undefined ? historyContexts[row.segment]! : context,
    [context, historyContexts],
  );
  return { rows, contextOf };
}
