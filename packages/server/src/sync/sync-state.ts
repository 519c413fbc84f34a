import type { JsonValue, SyncChangeFrom, SyncConflictReport } from '@agentlane/contract';
import { compareVectors } from '@agentlane/contract';

/** One keyed write of a sync client, with the writer's whole vector at write time. */
export type SyncChange = SyncChangeFrom;

/** The concurrent changes to a key, none of which has seen another; sorted by clientId then version. */
export type SyncConflict = SyncConflictReport;

const byWriter = (a: SyncChange, b: SyncChange): number =>
  a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : a.version - b.version;

/** The changes to one key that no other change to it has seen (the heads of the key's history). */
export function headsOf(changes: readonly SyncChange[]): SyncChange[] {
  return changes
    .filter((c) => !changes.some((d) => d !== c && compareVectors(c.vector, d.vector) === 'ancestor'))
    .sort(byWriter);
}

function groupByKey(changes: readonly SyncChange[]): Map<string, SyncChange[]> {
  const groups = new Map<string, SyncChange[]>();
  for (const c of changes) {
    const group = groups.get(c.key);
    if (group) group.push(c);
    else groups.set(c.key, [c]);
  }
  return groups;
}

/** Every key whose history has more than one head: concurrent writes neither side has seen. */
export function conflictsOf(changes: readonly SyncChange[]): SyncConflict[] {
  const out: SyncConflict[] = [];
  for (const [key, group] of [...groupByKey(changes)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const heads = headsOf(group);
    if (heads.length > 1) {
      out.push({ key, changes: heads.map(({ clientId, version, value }) => ({ clientId, version, value })) });
    }
  }
  return out;
}

/**
 * The state a set of changes converges to, independent of arrival order: each key takes its single head,
 * or, while a conflict stands, the head of the greatest client id (deterministic; the conflict is still
 * reported so a client can resolve it with a new write that has seen every head).
 */
export function resolveState(changes: readonly SyncChange[]): Record<string, JsonValue> {
  const state: Record<string, JsonValue> = {};
  const groups = [...groupByKey(changes)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [key, group] of groups) {
    const heads = headsOf(group);
    const winner = heads[heads.length - 1];
    if (winner) state[key] = winner.value;
  }
  return state;
}

export const conflictSignature = (c: SyncConflict): string =>
  `${c.key}|${c.changes.map((x) => `${x.clientId}:${x.version}`).join(',')}`;
