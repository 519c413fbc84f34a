import {
  CANONICAL_EVENT_KINDS,
  type CanonicalEvent,
  type CapabilityFlag,
  type NegotiatedCapabilities,
  noCapabilities,
  normalizeNegotiatedCapabilities,
  type RunStatus,
  type RunStatusEvent,
  type StreamEvent,
  type SyncConflictEvent,
} from '@agentlane/contract';
import { buildEntity, usageFrom } from './build-entity.js';
import { entityKeyOf, qualifiedKey } from './entity-key.js';
import { emptySharded, ShardedWriter, shardedEntries, shardedGet } from './sharded.js';
import {
  type EntityAside,
  type PlanItem,
  type RunView,
  type StoredRow,
  SURFACES,
  type Surface,
  type TimelineItem,
  type TimelineState,
  type TimelineView,
  type UsageTotals,
} from './types.js';

const CANONICAL: ReadonlySet<string> = new Set<string>(CANONICAL_EVENT_KINDS);
const RUN_RANK: Record<RunStatus, number> = { queued: 0, running: 1, completed: 2, failed: 3 };

/** A run.status older than (or the same as) what the run view already shows. */
function isStale(run: RunView, wire: RunStatusEvent): boolean {
  if (run.statusVersion !== undefined && wire.statusVersion !== undefined)
    return wire.statusVersion <= run.statusVersion;
  return RUN_RANK[run.status] >= RUN_RANK[wire.status];
}

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

/**
 * Applies many StreamEvents at once (a UI applies what arrived during one animation frame). The result
 * depends only on the set of (eventId, revision) rows and run signals seen, never on their arrival order
 * or on duplicates: entities are rebuilt from their rows, and each eventId keeps its latest revision.
 */
export function reduceTimelineBatch(state: TimelineState, events: readonly unknown[]): TimelineState {
  const rows = new ShardedWriter(state.rows);
  const groups = new ShardedWriter(state.groups);
  const runs = { ...state.runs };
  let conflicts = state.conflicts;
  let lastDeliverySeq = state.lastDeliverySeq;
  const dirty = new Set<string>();
  const copiedGroups = new Set<string>();
  const canonicalizedRuns = new Set<string>();
  let changed = false;

  const removeFromGroup = (key: string, eventId: string) => {
    groups.set(
      key,
      (groups.get(key) ?? []).filter((id) => id !== eventId),
    );
    copiedGroups.add(key);
    dirty.add(key);
  };
  const addToGroup = (key: string, eventId: string) => {
    const group = groups.get(key) ?? [];
    if (copiedGroups.has(key)) group.push(eventId);
    else {
      groups.set(key, [...group, eventId]);
      copiedGroups.add(key);
    }
  };

  for (const input of events) {
    if (typeof input !== 'object' || input === null) continue;
    const wire = input as StreamEvent;
    switch (wire.type) {
      case 'run.status': {
        const run = runs[wire.runId];
        if (run?.canonicalized) break;
        // Signals of one run come from several processes in no fixed order: the status version says which is
        // later (a server that sends none is ordered by the lifecycle, which only moves forward).
        if (run && isStale(run, wire)) break;
        runs[wire.runId] = {
          runId: wire.runId,
          status: wire.status,
          canonicalized: false,
          ...(wire.statusVersion !== undefined ? { statusVersion: wire.statusVersion } : {}),
        };
        changed = true;
        break;
      }
      case 'run.canonicalized': {
        const run = runs[wire.runId];
        if (run?.canonicalized && (run.lastDeliverySeq ?? 0) >= wire.lastDeliverySeq) break;
        runs[wire.runId] = {
          runId: wire.runId,
          status: wire.status,
          canonicalized: true,
          lastDeliverySeq: wire.lastDeliverySeq,
          completedAt: wire.completedAt,
        };
        canonicalizedRuns.add(wire.runId);
        changed = true;
        break;
      }
      case 'sync.conflict': {
        const key = JSON.stringify([wire.sessionId, wire.key, wire.changes]);
        if (conflicts.some((c) => JSON.stringify([c.sessionId, c.key, c.changes]) === key)) break;
        conflicts = [...conflicts, wire as SyncConflictEvent];
        changed = true;
        break;
      }
      case 'stream.opened':
      case 'stream.closing':
        break;
      default: {
        if (!CANONICAL.has(wire.type)) break;
        const event = wire.event as CanonicalEvent | undefined;
        if (typeof wire.deliverySeq !== 'number' || !event || typeof event.eventId !== 'string') break;
        if (event.kind !== wire.type) break;
        const revision = typeof wire.revision === 'number' ? wire.revision : 1;
        const namespace = Array.isArray(wire.namespace) ? wire.namespace.map(String) : [];
        const existing = rows.get(event.eventId);
        const order = Math.min(existing?.order ?? Number.POSITIVE_INFINITY, wire.deliverySeq);
        lastDeliverySeq = Math.max(lastDeliverySeq, wire.deliverySeq);
        changed = true;
        let key: string;
        try {
          key = qualifiedKey(namespace, entityKeyOf(event));
        } catch {
          break; // a payload missing its ids: nothing to fold it into
        }
        const newer =
          !existing ||
          revision > existing.revision ||
          (revision === existing.revision && wire.deliverySeq > existing.deliverySeq);
        if (!newer) {
          if (existing && order < existing.order) {
            rows.set(event.eventId, { ...existing, order });
            dirty.add(qualifiedKey(existing.namespace, entityKeyOf(existing.event)));
          }
          break;
        }
        if (existing) {
          const oldKey = qualifiedKey(existing.namespace, entityKeyOf(existing.event));
          if (oldKey !== key) removeFromGroup(oldKey, event.eventId);
        }
        rows.set(event.eventId, {
          eventId: event.eventId,
          revision,
          deliverySeq: wire.deliverySeq,
          order,
          provisional: wire.provisional !== false,
          namespace,
          event,
        });
        // A new revision of a row already in this entity keeps its place; only a new eventId joins it.
        if (!existing || qualifiedKey(existing.namespace, entityKeyOf(existing.event)) !== key) {
          addToGroup(key, event.eventId);
        }
        dirty.add(key);
      }
    }
  }
  if (!changed) return state;

  const rowsDone = rows.done();
  const groupsDone = groups.done();
  if (canonicalizedRuns.size > 0) {
    for (const [key, ids] of shardedEntries(groupsDone)) {
      if (ids.some((id) => canonicalizedRuns.has(shardedGet(rowsDone, id)?.event.runId ?? '')))
        dirty.add(key);
    }
  }

  const isFinal = (row: StoredRow): boolean => {
    if (!row.provisional) return true;
    const run = runs[row.event.runId];
    return (
      run?.canonicalized === true && row.deliverySeq <= (run.lastDeliverySeq ?? Number.POSITIVE_INFINITY)
    );
  };

  const entities = new ShardedWriter(state.entities);
  const members = { ...state.members };
  const copiedMembers = new Set<string>();
  const dirtyTimelines = new Set<string>();
  for (const key of dirty) {
    const ids = shardedGet(groupsDone, key) ?? [];
    const entityRows = ids
      .map((id) => shardedGet(rowsDone, id))
      .filter((row): row is StoredRow => row !== undefined)
      .sort((a, b) => a.order - b.order || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
    const hash = key.indexOf('#');
    const timelineKey = key.slice(0, hash);
    const namespace = timelineKey === '' ? [] : timelineKey.split('/');
    const entity = buildEntity(key.slice(hash + 1), entityRows, namespace, isFinal);
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
  const entitiesDone = entities.done();

  const timelines = { ...state.timelines };
  for (const timelineKey of dirtyTimelines) {
    const keys = members[timelineKey] ?? [];
    timelines[timelineKey] = buildView(
      timelineKey,
      keys.map((key) => shardedGet(entitiesDone, key)!),
    );
  }

  return {
    lastDeliverySeq,
    rows: rowsDone,
    groups: groupsDone,
    entities: entitiesDone,
    members,
    runs,
    timelines,
    conflicts,
  };
}

/** Which capability flag turns each surface on before any of its events arrives. */
const SURFACE_FLAG: Partial<Record<Surface, CapabilityFlag>> = {
  reasoning: 'reasoning',
  plan: 'plans',
  tools: 'toolProgress',
  files: 'fileDiffs',
  terminal: 'directTerminal',
  children: 'childSessions',
  approvals: 'approvals',
  questions: 'questions',
  commands: 'commands',
  usage: 'usage',
  modelPicker: 'modelSelection',
};

const ITEM_SURFACE: Partial<Record<TimelineItem['type'], Surface>> = {
  reasoning: 'reasoning',
  plan: 'plan',
  tool: 'tools',
  file: 'files',
  terminal: 'terminal',
  artifact: 'artifacts',
  child: 'children',
  approval: 'approvals',
  question: 'questions',
  context: 'context',
};

function buildView(timelineKey: string, entities: (TimelineItem | EntityAside)[]): TimelineView {
  const items: TimelineItem[] = [];
  const view: TimelineView = {
    key: timelineKey,
    namespace: timelineKey === '' ? [] : timelineKey.split('/'),
    items,
    capabilities: noCapabilities(),
    metadata: {},
    commands: [],
    usage: { turns: {} },
    surfaces: Object.fromEntries(SURFACES.map((s) => [s, false])) as Record<Surface, boolean>,
  };
  let sessionUsage: UsageTotals | undefined;
  for (const entity of entities) {
    switch (entity.type) {
      case 'session':
        view.session = entity.value;
        view.capabilities = normalizeNegotiatedCapabilities(entity.value.capabilities);
        break;
      case 'metadata':
        view.metadata = entity.value;
        break;
      case 'commands':
        view.commands = entity.value;
        break;
      case 'mode':
        view.mode = entity.value;
        break;
      case 'usage':
        if (entity.scope === 'session') sessionUsage = entity.value;
        else view.usage.turns[entity.turnId] = entity.value;
        break;
      default:
        items.push(entity);
        if (entity.type === 'plan') view.plan = entity as PlanItem;
    }
  }
  items.sort((a, b) => a.order - b.order || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const turnUsage = Object.values(view.usage.turns);
  if (sessionUsage) view.usage.total = sessionUsage;
  else if (turnUsage.length > 0) view.usage.total = sumUsage(turnUsage);

  const surfaces = view.surfaces;
  const caps: NegotiatedCapabilities = view.capabilities;
  for (const surface of SURFACES) {
    const flag = SURFACE_FLAG[surface];
    if (flag && caps[flag]) surfaces[surface] = true;
  }
  for (const item of items) {
    const surface = ITEM_SURFACE[item.type];
    if (surface) surfaces[surface] = true;
  }
  if (view.commands.length > 0) surfaces.commands = true;
  if (view.mode) surfaces.modes = true;
  if (view.usage.total) surfaces.usage = true;
  return view;
}

function sumUsage(values: UsageTotals[]): UsageTotals {
  return usageFrom(
    values.map((u) => ({
      scope: 'turn' as const,
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      reasoningTokens: u.reasoningTokens,
      cachedInputTokens: u.cachedInputTokens,
      totalTokens: u.totalTokens,
      contextUsedTokens: u.contextUsedTokens,
      contextWindowTokens: u.contextWindowTokens,
      cost: u.cost,
      model: u.model,
    })),
  );
}

/** The view of a timeline nothing has arrived for yet: no items, every surface off. */
export function emptyTimelineView(timelineKey = ''): TimelineView {
  return buildView(timelineKey, []);
}
