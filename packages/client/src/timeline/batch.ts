import type {
  CanonicalEvent,
  CanonicalStreamEvent,
  RunCanonicalizedEvent,
  RunStatus,
  RunStatusEvent,
  SyncConflictEvent,
} from '@agentlane/contract';
import { entityKeyOf, qualifiedKey } from './entity-key.js';
import { ShardedWriter } from './sharded.js';
import type { RunView, StoredRow, TimelineState } from './types.js';

const RUN_RANK: Record<RunStatus, number> = { queued: 0, running: 1, completed: 2, failed: 3 };

/** A run.status older than (or the same as) what the run view already shows. */
function isStale(run: RunView, wire: RunStatusEvent): boolean {
  if (run.statusVersion !== undefined && wire.statusVersion !== undefined)
    return wire.statusVersion <= run.statusVersion;
  return RUN_RANK[run.status] >= RUN_RANK[wire.status];
}

/** A revision replaces the stored row when it is higher, or the same one delivered again later. */
function isNewer(existing: StoredRow, revision: number, deliverySeq: number): boolean {
  return (
    revision > existing.revision || (revision === existing.revision && deliverySeq > existing.deliverySeq)
  );
}

/** The entity a stored row belongs to. */
function keyOfRow(row: StoredRow): string {
  return qualifiedKey(row.namespace, entityKeyOf(row.event));
}

/**
 * The writes of one reduceTimelineBatch: rows, entity groups, runs and conflicts as the events leave them,
 * copied on first write so the state it started from stays intact, plus which entities need rebuilding.
 */
export class TimelineBatch {
  readonly rows: ShardedWriter<StoredRow>;
  readonly groups: ShardedWriter<string[]>;
  readonly runs: Record<string, RunView>;
  conflicts: SyncConflictEvent[];
  lastDeliverySeq: number;
  /** Entity keys whose rows changed (or whose finality may have). */
  readonly dirty = new Set<string>();
  /** Runs whose completion signal arrived in this batch: their entities' rows may have become final. */
  readonly canonicalizedRuns = new Set<string>();
  changed = false;
  /** Groups already copied in this batch, so further ids are pushed in place. */
  private readonly copiedGroups = new Set<string>();

  constructor(state: TimelineState) {
    this.rows = new ShardedWriter(state.rows);
    this.groups = new ShardedWriter(state.groups);
    this.runs = { ...state.runs };
    this.conflicts = state.conflicts;
    this.lastDeliverySeq = state.lastDeliverySeq;
  }

  applyRunStatus(wire: RunStatusEvent): void {
    const run = this.runs[wire.runId];
    if (run?.canonicalized) return;
    // Signals of one run come from several processes in no fixed order: the status version says which is
    // later (a server that sends none is ordered by the lifecycle, which only moves forward).
    if (run && isStale(run, wire)) return;
    this.runs[wire.runId] = {
      runId: wire.runId,
      status: wire.status,
      canonicalized: false,
      ...(wire.statusVersion !== undefined ? { statusVersion: wire.statusVersion } : {}),
    };
    this.changed = true;
  }

  applyRunCanonicalized(wire: RunCanonicalizedEvent): void {
    const run = this.runs[wire.runId];
    if (run?.canonicalized && (run.lastDeliverySeq ?? 0) >= wire.lastDeliverySeq) return;
    this.runs[wire.runId] = {
      runId: wire.runId,
      status: wire.status,
      canonicalized: true,
      lastDeliverySeq: wire.lastDeliverySeq,
      completedAt: wire.completedAt,
    };
    this.canonicalizedRuns.add(wire.runId);
    this.changed = true;
  }

  applySyncConflict(wire: SyncConflictEvent): void {
    const key = JSON.stringify([wire.sessionId, wire.key, wire.changes]);
    if (this.conflicts.some((c) => JSON.stringify([c.sessionId, c.key, c.changes]) === key)) return;
    this.conflicts = [...this.conflicts, wire];
    this.changed = true;
  }

  /** A canonical event row: kept when it is a newer revision of its eventId, and its entity marked dirty. */
  applyRow(wire: CanonicalStreamEvent): void {
    const event = wire.event as CanonicalEvent | undefined;
    if (typeof wire.deliverySeq !== 'number' || !event || typeof event.eventId !== 'string') return;
    if (event.kind !== wire.type) return;
    const revision = typeof wire.revision === 'number' ? wire.revision : 1;
    const namespace = Array.isArray(wire.namespace) ? wire.namespace.map(String) : [];
    const existing = this.rows.get(event.eventId);
    const order = Math.min(existing?.order ?? Number.POSITIVE_INFINITY, wire.deliverySeq);
    this.lastDeliverySeq = Math.max(this.lastDeliverySeq, wire.deliverySeq);
    this.changed = true;
    let key: string;
    try {
      key = qualifiedKey(namespace, entityKeyOf(event));
    } catch {
      return; // a payload missing its ids: nothing to fold it into
    }
    if (existing && !isNewer(existing, revision, wire.deliverySeq)) {
      this.lowerOrder(existing, order);
      return;
    }
    const oldKey = existing && keyOfRow(existing);
    if (oldKey !== undefined && oldKey !== key) this.removeFromGroup(oldKey, event.eventId);
    const provisional = wire.provisional !== false;
    this.rows.set(event.eventId, {
      eventId: event.eventId,
      revision,
      deliverySeq: wire.deliverySeq,
      order,
      provisional,
      namespace,
      event,
    });
    // A new revision of a row already in this entity keeps its place; only a new eventId joins it.
    if (oldKey !== key) this.addToGroup(key, event.eventId);
    this.dirty.add(key);
  }

  /** An older revision seen late still moves its row up to the lowest deliverySeq seen. */
  private lowerOrder(existing: StoredRow, order: number): void {
    if (order >= existing.order) return;
    this.rows.set(existing.eventId, { ...existing, order });
    this.dirty.add(keyOfRow(existing));
  }

  private removeFromGroup(key: string, eventId: string): void {
    this.groups.set(
      key,
      (this.groups.get(key) ?? []).filter((id) => id !== eventId),
    );
    this.copiedGroups.add(key);
    this.dirty.add(key);
  }

  private addToGroup(key: string, eventId: string): void {
    const group = this.groups.get(key) ?? [];
    if (this.copiedGroups.has(key)) group.push(eventId);
    else {
      this.groups.set(key, [...group, eventId]);
      this.copiedGroups.add(key);
    }
  }
}
