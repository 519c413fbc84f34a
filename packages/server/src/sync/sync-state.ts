import type { JsonValue, SyncChangeFrom, SyncConflictReport } from '@agentlane/contract';
import { compareVectors } from '@agentlane/contract';

/** One keyed write of a sync client, with the writer's whole vector at write time. */
export type SyncChange = SyncChangeFrom;

/** The concurrent changes to a key, none of which has seen another; sorted by clientId then version. */
export type SyncConflict = SyncConflictReport;

const byWriter = (a: SyncChange, b: SyncChange): number =>
  a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : a.version - b.version;

/**
 * The changes to one key that no other change to it has seen (the heads of the key's history). One pass
 * that keeps the heads so far: a change some head has seen is no head (strict ancestry is transitive, so
 * comparing with the heads is enough), and a new head drops the heads it has seen. O(changes × heads)
 * vector comparisons instead of every pair: with all writes concurrent (heads = changes) it is as costly
 * as before, which is why a key's concurrent heads are capped (SYNC_LIMITS.headsPerKey).
 */
export function headsOf(changes: readonly SyncChange[]): SyncChange[] {
  let heads: SyncChange[] = [];
  for (const c of changes) {
    if (heads.some((h) => compareVectors(c.vector, h.vector) === 'ancestor')) continue;
    heads = heads.filter((h) => compareVectors(h.vector, c.vector) !== 'ancestor');
    heads.push(c);
  }
  return heads.sort(byWriter);
}

/**
 * Bounds of one session's sync state and of one sync's answer, so that no request, and no later one, costs
 * more than a bounded amount of work: a sync compares the heads of the keys it writes (at most `headsPerKey`
 * each), and answers with a page of about `replyChangeBytes` of changes and `replyConflictBytes` of conflicts
 * (stored text; one change, or one key's heads, even when larger), `more: true` when something is left.
 */
export const SYNC_LIMITS = {
  /** Changes stored per session (a client that needs more compacts into fewer keys). */
  changesPerSession: 10_000,
  /**
   * Clients that write in one session: a vector names at most 128 clients (SyncRequest's vector), so a session
   * with more writers would answer vectors that no client could send back.
   */
  writersPerSession: 128,
  /** Concurrent writes to one key that stand unresolved; a further concurrent write is refused. */
  headsPerKey: 32,
  /** Unseen changes per answer, in bytes of their stored key, value and vector. */
  replyChangeBytes: 1024 * 1024,
  /** Conflicts per answer, in bytes of their heads' stored key, value and vector. */
  replyConflictBytes: 256 * 1024,
} as const;

/**
 * The keys of `changes` (the new ones) whose history would stand with more than the allowed heads, and more
 * than it has now: a key already over the bound (another process let one more in) still takes a write that
 * does not add to its heads. `stored`: the heads of those keys now. The count is exact, never cut short:
 * a later change can drop every head before it (the write that resolves them), so counting that stops past
 * the bound refused the very write that resolves a key over it, for good.
 */
export function keysOverHeadLimit(
  stored: readonly SyncChange[],
  changes: readonly SyncChange[],
): { key: string; heads: number }[] {
  const touched = new Set(changes.map((c) => c.key));
  const before = new Map<string, number>();
  for (const c of stored) if (touched.has(c.key)) before.set(c.key, (before.get(c.key) ?? 0) + 1);
  const over: { key: string; heads: number }[] = [];
  for (const [key, group] of groupByKey([...stored, ...changes].filter((c) => touched.has(c.key)))) {
    const heads = headsOf(group).length;
    if (heads > SYNC_LIMITS.headsPerKey && heads > (before.get(key) ?? 0)) over.push({ key, heads });
  }
  return over;
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

/**
 * Every key whose history has more than one head: concurrent writes neither side has seen. With `keys`, only
 * those keys are looked at.
 */
export function conflictsOf(changes: readonly SyncChange[], keys?: ReadonlySet<string>): SyncConflict[] {
  const out: SyncConflict[] = [];
  for (const [key, group] of [...groupByKey(changes)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (keys && !keys.has(key)) continue;
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
