import type { RowMeta } from './rows.js';

export interface PrunePlan {
  deleteIds: string[];
  /** Kept delta rows whose chain to a full row runs through a deleted row, oldest first. */
  rebaseIds: string[];
}

/**
 * Which rows of one namespace `prune` deletes (all but the newest `keepNewest` and the pinned ones) and
 * which kept rows must first be rewritten as full snapshots so they stay hydratable. `metas` is oldest
 * first, so a rebased parent already counts as full when its children are checked.
 */
export function planPrune(metas: readonly RowMeta[], keepNewest: number): PrunePlan {
  const byId = new Map(metas.map((m) => [m.checkpointId, m]));
  const keep = new Set(metas.slice(Math.max(0, metas.length - keepNewest)).map((m) => m.checkpointId));
  for (const m of metas) if (m.pinned) keep.add(m.checkpointId);
  const full = new Set(metas.filter((m) => m.storage === 'full').map((m) => m.checkpointId));
  const rebaseIds: string[] = [];
  for (const meta of metas) {
    if (!keep.has(meta.checkpointId) || full.has(meta.checkpointId)) continue;
    // Walk towards the base; leaving the kept set means this row's base is being pruned.
    let cursor = meta.parentCheckpointId;
    let reachesBase = false;
    while (cursor !== null && keep.has(cursor)) {
      if (full.has(cursor)) {
        reachesBase = true;
        break;
      }
      cursor = byId.get(cursor)?.parentCheckpointId ?? null;
    }
    if (reachesBase) continue;
    rebaseIds.push(meta.checkpointId);
    full.add(meta.checkpointId);
  }
  return { deleteIds: metas.filter((m) => !keep.has(m.checkpointId)).map((m) => m.checkpointId), rebaseIds };
}
