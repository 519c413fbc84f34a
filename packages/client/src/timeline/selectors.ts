import type {
  ApprovalItem,
  QuestionItem,
  RunView,
  TimelineItem,
  TimelineState,
  TimelineView,
} from './types.js';

const EMPTY_VIEW_ITEMS: TimelineItem[] = [];

/** The root thread's view ('' key); child sessions live under their namespace key. */
export function rootTimeline(state: TimelineState): TimelineView | undefined {
  return state.timelines[''];
}

export function timelineItems(state: TimelineState, timelineKey = ''): TimelineItem[] {
  return state.timelines[timelineKey]?.items ?? EMPTY_VIEW_ITEMS;
}

export interface OpenRequest {
  timelineKey: string;
  item: ApprovalItem | QuestionItem;
}

/** Every approval and question still waiting for an answer, sub-agents' included, oldest first. */
export function openRequests(state: TimelineState): OpenRequest[] {
  const open: OpenRequest[] = [];
  for (const view of Object.values(state.timelines)) {
    for (const item of view.items) {
      if ((item.type === 'approval' || item.type === 'question') && item.open) {
        open.push({ timelineKey: view.key, item });
      }
    }
  }
  return open.sort((a, b) => a.item.order - b.item.order);
}

/** The run the composer acts on: the newest one that has not settled. */
export function activeRun(state: TimelineState): RunView | undefined {
  const runs = Object.values(state.runs).filter((run) => run.status === 'queued' || run.status === 'running');
  return runs[runs.length - 1];
}
