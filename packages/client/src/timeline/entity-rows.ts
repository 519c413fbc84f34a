import type { CanonicalEventKind, CanonicalEventOf } from '@agentlane/contract';
import type { StoredRow, TimelineItem } from './types.js';

/** The rows of one entity, sorted by order. */
export type Rows = readonly StoredRow[];

/** What every timeline item takes from its entity's rows: key, place, run, turn and finality. */
export type Base = Pick<TimelineItem, 'key' | 'order' | 'runId' | 'turnId' | 'ts' | 'provisional'>;

/** One entity's rows with what every builder reads from them. `rows` is never empty. */
export interface EntityRows {
  localKey: string;
  rows: Rows;
  namespace: readonly string[];
  first: StoredRow;
  /** The order of the entity's last row: where session facts sit (the latest one wins). */
  lastOrder: number;
  base: Base;
}

export function ofKind<K extends CanonicalEventKind>(rows: Rows, kind: K): CanonicalEventOf<K>[] {
  return rows.filter((row) => row.event.kind === kind).map((row) => row.event as CanonicalEventOf<K>);
}

export function last<T>(values: readonly T[]): T | undefined {
  return values[values.length - 1];
}

/** Joins deltas by part, parts in order of first appearance, deltas in row order. */
export function assembleParts(
  deltas: { partId: string; delta: string }[],
): { partId: string; text: string }[] {
  const parts = new Map<string, string>();
  for (const { partId, delta } of deltas) parts.set(partId, (parts.get(partId) ?? '') + delta);
  return [...parts].map(([partId, text]) => ({ partId, text }));
}

/** The id an entity key carries after its prefix (`tool:call-1` → `call-1`). */
export function idOf(localKey: string, prefix: string): string {
  return localKey.slice(prefix.length + 1);
}
