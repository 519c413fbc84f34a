import type { ForkedFrom, TimelineItem, TimelineView } from '@agentlane/client';
import { emptyTimelineView } from '@agentlane/client';
import { describe, expect, it } from 'vitest';
import { displayRows, historyRows, ownRowIndex, rowKey } from '../../src/components/display-rows';
import { forkPoint } from '../../src/components/fork-marker';
import type { ForkSegment } from '../../src/use-fork-history';

/** A forked thread's rows: each origin's history, its fork point, then the thread's own rows. */

let order = 0;
const base = (key: string, turnId: string) => ({
  key,
  order: ++order,
  runId: `run-${turnId}`,
  turnId,
  ts: '2026-01-01T00:00:00.000Z',
  provisional: false,
});
const turn = (turnId: string): TimelineItem => ({
  ...base(`turn:${turnId}`, turnId),
  type: 'turn',
  status: 'completed',
});
const said = (key: string, turnId: string): TimelineItem => ({
  ...base(key, turnId),
  type: 'message',
  messageId: key,
  role: 'assistant',
  text: key,
  parts: [],
  status: 'completed',
});
const view = (items: TimelineItem[]): TimelineView => ({ ...emptyTimelineView(), items });
const fork = (threadId: string, stageId: ForkedFrom['stageId']): ForkedFrom => ({
  threadId,
  checkpointId: `cp-${threadId}`,
  stageId,
  at: '2026-01-01T00:00:00.000Z',
  runId: null,
  headSeq: 10,
});

describe('a forked thread’s rows', () => {
  const origin: ForkSegment = {
    fork: fork('origin', 'post-turn'),
    title: 'Origin',
    loading: false,
    view: view([turn('o1'), said('m1', 'o1'), turn('o2'), said('m2', 'o2')]),
  };
  const middle: ForkSegment = {
    fork: fork('middle', 'tool-loop'),
    title: 'Middle',
    loading: false,
    view: view([turn('t1'), said('m1', 't1')]),
  };

  it('puts each origin’s rows and its fork point before the thread’s own, keyed apart', () => {
    const own = displayRows([turn('x1'), said('m1', 'x1')], new Set());
    const rows = [...historyRows([origin, middle], new Set()), ...own];
    expect(rows.map(rowKey)).toEqual([
      'history:0:turn:o1',
      'history:0:m1',
      'history:0:turn:o2',
      'history:0:m2',
      'fork:0',
      'history:1:turn:t1',
      'history:1:m1',
      'fork:1',
      'turn:x1',
      'm1',
    ]);
    // Jumping to a key finds the thread's own row, never an origin's with the same key.
    expect(ownRowIndex(rows, 'm1')).toBe(9);
    expect(ownRowIndex(rows, 'm2')).toBe(-1);
    // A folded origin turn hides its rows there too.
    expect(historyRows([origin], new Set(['o1'])).map(rowKey)).toEqual([
      'history:0:turn:o1',
      'history:0:turn:o2',
      'history:0:m2',
      'fork:0',
    ]);
  });

  it('says where the fork is: the turn its history ends in and the checkpoint’s stage', () => {
    expect(forkPoint(origin)).toBe('turn 2, at its end');
    expect(forkPoint(middle)).toBe('turn 1, after its tool calls');
    expect(forkPoint({ ...middle, view: view([]) })).toBe('its start');
    // Still reading (or unreadable): the point is shown with the fork-point row, the rows come later.
    expect(historyRows([{ ...origin, view: undefined, loading: true }], new Set()).map(rowKey)).toEqual([
      'fork:0',
    ]);
  });
});
