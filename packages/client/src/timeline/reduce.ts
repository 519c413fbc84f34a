import { CANONICAL_EVENT_KINDS, type CanonicalStreamEvent, type StreamEvent } from '@agentlane/contract';
import { TimelineBatch } from './batch.js';
import { buildView } from './build-view.js';
import { finalityIn, markCanonicalizedRuns, rebuildEntities, rebuildTimelines } from './rebuild.js';
import { emptySharded } from './sharded.js';
import type { TimelineState, TimelineView } from './types.js';

const CANONICAL: ReadonlySet<string> = new Set<string>(CANONICAL_EVENT_KINDS);

/** The frames of a stream that are not canonical event rows. */
type Signal = Exclude<StreamEvent, CanonicalStreamEvent>;

/**
 * One handler per signal type: a new type in StreamEvent fails to compile here until it is handled. A table
 * (not a switch) because frames arrive untyped: an unknown type is looked up, found missing and ignored.
 */
const SIGNALS: { [T in Signal['type']]: (batch: TimelineBatch, wire: Extract<Signal, { type: T }>) => void } =
  {
    'run.status': (batch, wire) => batch.applyRunStatus(wire),
    'run.canonicalized': (batch, wire) => batch.applyRunCanonicalized(wire),
    'sync.conflict': (batch, wire) => batch.applySyncConflict(wire),
    // Stream framing: nothing of the timeline changes.
    'stream.opened': () => {},
    'stream.closing': () => {},
  };

export function initialTimelineState(): TimelineState {
  return {
    lastDeliverySeq: 0,
    rows: emptySharded(),
    groups: emptySharded(),
    entities: emptySharded(),
    members: {},
    runs: {},
    timelines: {},
    conflicts: [],
  };
}

/** Applies one StreamEvent. Pure: returns a new state and leaves the argument untouched. */
export function reduceTimeline(state: TimelineState, event: StreamEvent | unknown): TimelineState {
  return reduceTimelineBatch(state, [event]);
}

/** Routes one frame to its handler; anything that is not a known frame is ignored. */
function applyFrame(batch: TimelineBatch, input: unknown): void {
  if (typeof input !== 'object' || input === null) return;
  const type = (input as { type?: unknown }).type;
  if (typeof type !== 'string') return;
  if (CANONICAL.has(type)) batch.applyRow(input as CanonicalStreamEvent);
  else if (Object.hasOwn(SIGNALS, type)) {
    const handler = SIGNALS[type as Signal['type']] as (batch: TimelineBatch, wire: Signal) => void;
    handler(batch, input as Signal);
  }
}

/**
 * Applies many StreamEvents at once (a UI applies what arrived during one animation frame). The result
 * depends only on the set of (eventId, revision) rows and run signals seen, never on their arrival order
 * or on duplicates: entities are rebuilt from their rows, and each eventId keeps its latest revision.
 */
export function reduceTimelineBatch(state: TimelineState, events: readonly unknown[]): TimelineState {
  const batch = new TimelineBatch(state);
  for (const input of events) applyFrame(batch, input);
  if (!batch.changed) return state;

  const rows = batch.rows.done();
  const groups = batch.groups.done();
  markCanonicalizedRuns(rows, groups, batch.canonicalizedRuns, batch.dirty);
  const rebuilt = rebuildEntities(state, rows, groups, batch.dirty, finalityIn(batch.runs));
  return {
    lastDeliverySeq: batch.lastDeliverySeq,
    rows,
    groups,
    entities: rebuilt.entities,
    members: rebuilt.members,
    runs: batch.runs,
    timelines: rebuildTimelines(state.timelines, rebuilt),
    conflicts: batch.conflicts,
  };
}

/** The view of a timeline nothing has arrived for yet: no items, every surface off. */
export function emptyTimelineView(timelineKey = ''): TimelineView {
  return buildView(timelineKey, []);
}
