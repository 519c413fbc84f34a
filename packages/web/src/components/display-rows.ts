import type { TimelineItem, UsageTotals } from '@agentlane/client';
import type { ArtifactRef } from '@agentlane/contract';
import type { ForkSegment } from '../use-fork-history';

/** A row of the virtualized list; `segment` marks a forked thread's history (which origin it is from). */
export type DisplayRow =
  | { kind: 'item'; item: TimelineItem; segment?: number }
  | { kind: 'group'; key: string; items: TimelineItem[]; segment?: number }
  | { kind: 'fork'; key: string; origin: ForkSegment };

export interface RowContext {
  threadId: string;
  turnUsage: Record<string, UsageTotals>;
  folded: ReadonlySet<string>;
  toggleFold(turnId: string): void;
  /** Turns that have a user message of their own (the prompt is then not repeated). */
  turnsWithUserMessage: ReadonlySet<string>;
  /** Another thread's rows shown as history: nothing in them is answered or run from here. */
  readOnly?: boolean;
  /** Opens the inspector's Raw frames on a row's items. */
  onInspect?(itemKeys: string[], label: string): void;
  /** Opens a file's diff history in the thread. */
  onFileHistory?(path: string): void;
  /** The artifacts holding the full text of messages whose completed text is a preview (`messageRef` keys). */
  offloadedTexts?: ReadonlyMap<string, ArtifactRef>;
}

const QUIET_KINDS = new Set(['read', 'search', 'think', 'fetch']);

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

/** A forked thread's history: each origin's rows up to its cut, then the fork point's marker. */
export function historyRows(segments: readonly ForkSegment[], folded: ReadonlySet<string>): DisplayRow[] {
  const rows: DisplayRow[] = [];
  segments.forEach((segment, index) => {
    for (const row of displayRows(segment.view?.items ?? [], folded))
      if (row.kind !== 'fork') rows.push({ ...row, segment: index });
    rows.push({ kind: 'fork', key: `fork:${index}`, origin: segment });
  });
  return rows;
}

/** The row's key in the list: a history row's is its origin's, kept apart from this thread's own. */
export function rowKey(row: DisplayRow): string {
  const key = row.kind === 'item' ? row.item.key : row.key;
  return row.kind !== 'fork' && row.segment !== undefined ? `history:${row.segment}:${key}` : key;
}

/** The index of the row showing an item of this thread's own (the history's rows are another thread's). */
export function ownRowIndex(rows: readonly DisplayRow[], key: string): number {
  return rows.findIndex((row) =>
    row.kind === 'fork' || row.segment !== undefined
      ? false
      : row.kind === 'item'
        ? row.item.key === key
        : row.items.some((item) => item.key === key),
  );
}
