import { buildEntity } from './build-entity.js';
import { buildView } from './build-view.js';
import { type Sharded, ShardedWriter, shardedEntries, shardedGet } from './sharded.js';
import type { EntityAside, RunView, StoredRow, TimelineItem, TimelineState, TimelineView } from './types.js';

type Entity = TimelineItem | EntityAside;

/** A run's completion signal makes its rows final: every entity holding one of its rows is rebuilt. */
export function markCanonicalizedRuns(
  rows: Sharded<StoredRow>,
  groups: Sharded<string[]>,
  canonicalizedRuns: ReadonlySet<string>,
  dirty: Set<string>,
): void {
  if (canonicalizedRuns.size === 0) return;
  for (const [key, ids] of shardedEntries(groups)) {
    if (ids.some((id) => canonicalizedRuns.has(shardedGet(rows, id)?.event.runId ?? ''))) dirty.add(key);
  }
}

/** A row is final when the server said so, or when its run's completion signal covers its deliverySeq. */
export function finalityIn(runs: Readonly<Record<string, RunView>>): (row: StoredRow) => boolean {
  return (row) => {
    if (!row.provisional) return true;
    const run = runs[row.event.runId];
    return (
      run?.canonicalized === true && row.deliverySeq <= (run.lastDeliverySeq ?? Number.POSITIVE_INFINITY)
    );
  };
}

/** The rows of one entity in timeline order (ties broken by eventId, so any arrival order agrees). */
function entityRows(rows: Sharded<StoredRow>, ids: readonly string[]): StoredRow[] {
  return ids
    .map((id) => shardedGet(rows, id))
    .filter((row): row is StoredRow => row !== undefined)
    .sort((a, b) => a.order - b.order || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
}

export interface RebuiltEntities {
  entities: Sharded<Entity>;
  members: Record<string, string[]>;
  /** Timelines one of whose entities changed: their views are rebuilt. */
  dirtyTimelines: Set<string>;
}

/** Rebuilds each dirty entity from its rows; one that now builds to nothing leaves its timeline. */
export function rebuildEntities(
  state: TimelineState,
  rows: Sharded<StoredRow>,
  groups: Sharded<string[]>,
  dirty: ReadonlySet<string>,
  isFinal: (row: StoredRow) => boolean,
): RebuiltEntities {
  const entities = new ShardedWriter(state.entities);
  const members = { ...state.members };
  const copiedMembers = new Set<string>();
  const dirtyTimelines = new Set<string>();
  for (const key of dirty) {
    const hash = key.indexOf('#');
    const timelineKey = key.slice(0, hash);
    const namespace = timelineKey === '' ? [] : timelineKey.split('/');
    const entity = buildEntity(
      key.slice(hash + 1),
      entityRows(rows, shardedGet(groups, key) ?? []),
      namespace,
      isFinal,
    );
    const known = entities.get(key) !== undefined;
    if (entity) {
      entities.set(key, entity);
      if (!known) {
        if (!copiedMembers.has(timelineKey)) {
          members[timelineKey] = [...(members[timelineKey] ?? [])];
          copiedMembers.add(timelineKey);
        }
        members[timelineKey]!.push(key);
      }
    } else if (known) {
      entities.delete(key);
      members[timelineKey] = (members[timelineKey] ?? []).filter((k) => k !== key);
      copiedMembers.add(timelineKey);
    }
    dirtyTimelines.add(timelineKey);
  }
  return { entities: entities.done(), members, dirtyTimelines };
}

/** The views of the timelines whose entities changed; the others are shared with the previous state. */
export function rebuildTimelines(
  previous: Readonly<Record<string, TimelineView>>,
  { entities, members, dirtyTimelines }: RebuiltEntities,
): Record<string, TimelineView> {
  const timelines = { ...previous };
  for (const timelineKey of dirtyTimelines) {
    const keys = members[timelineKey] ?? [];
    timelines[timelineKey] = buildView(
      timelineKey,
      keys.map((key) => shardedGet(entities, key)!),
    );
  }
  return timelines;
}
