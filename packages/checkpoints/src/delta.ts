import type { ChannelSnapshot, JsonValue } from '@agentlane/contract';
import { CheckpointError } from './errors.js';
import { isJsonValue, isPlainObject, jsonEqual } from './json.js';
import { parseChannels } from './validate.js';

/**
 * What one channel did between a parent checkpoint and its child. Channels absent from a delta are
 * unchanged. `append` is used for accumulating channels (topic, and binary_op_aggregate with the
 * `append` reducer): only the new items are stored, so a long conversation costs O(new items) per turn.
 */
export type ChannelDelta =
  | { op: 'put'; snapshot: ChannelSnapshot }
  | { op: 'append'; version: number; items: JsonValue[] }
  | { op: 'drop' };

export type CheckpointDelta = Record<string, ChannelDelta>;

/** The array an accumulating snapshot grows, plus everything else in it that must stay equal to append. */
function appendable(
  snapshot: ChannelSnapshot,
): { items: JsonValue[]; rest: Record<string, unknown> } | undefined {
  const value = snapshot.value;
  if (!isPlainObject(value)) return undefined;
  if (snapshot.kind === 'topic' && Array.isArray(value.items) && value.accumulate === true) {
    return { items: value.items as JsonValue[], rest: { accumulate: true } };
  }
  if (snapshot.kind === 'binary_op_aggregate' && value.reducer === 'append' && Array.isArray(value.value)) {
    return { items: value.value as JsonValue[], rest: { reducer: 'append' } };
  }
  return undefined;
}

function withItems(snapshot: ChannelSnapshot, version: number, items: JsonValue[]): ChannelSnapshot {
  const value = snapshot.value as Record<string, JsonValue>;
  return snapshot.kind === 'topic'
    ? { kind: 'topic', version, value: { accumulate: value.accumulate as boolean, items } }
    : { kind: snapshot.kind, version, value: { reducer: value.reducer as string, value: items } };
}

function isPrefix(prefix: readonly JsonValue[], of: readonly JsonValue[]): boolean {
  if (prefix.length > of.length) return false;
  for (let i = 0; i < prefix.length; i++) if (!jsonEqual(prefix[i], of[i])) return false;
  return true;
}

/**
 * The delta from `parent` to `child`. Refuses a channel whose version went backwards, or whose content
 * changed while its version stayed the same (storage would silently drop that change).
 */
export function computeDelta(
  parent: Record<string, ChannelSnapshot>,
  child: Record<string, ChannelSnapshot>,
  checkpointId?: string,
): CheckpointDelta {
  const delta: CheckpointDelta = {};
  for (const [name, next] of Object.entries(child)) {
    const prev = parent[name];
    if (!prev) {
      delta[name] = { op: 'put', snapshot: next };
      continue;
    }
    if (next.version < prev.version) {
      throw new CheckpointError(
        'version_regression',
        `channel "${name}" version went backwards (${prev.version} → ${next.version})`,
        checkpointId,
        name,
      );
    }
    if (next.version === prev.version) {
      if (next.kind !== prev.kind || !jsonEqual(next.value, prev.value)) {
        throw new CheckpointError(
          'unversioned_change',
          `channel "${name}" changed but its version stayed ${next.version}`,
          checkpointId,
          name,
        );
      }
      continue;
    }
    const from = prev.kind === next.kind ? appendable(prev) : undefined;
    const to = from ? appendable(next) : undefined;
    if (from && to && jsonEqual(from.rest, to.rest) && isPrefix(from.items, to.items)) {
      delta[name] = { op: 'append', version: next.version, items: to.items.slice(from.items.length) };
    } else {
      delta[name] = { op: 'put', snapshot: next };
    }
  }
  for (const name of Object.keys(parent)) if (!Object.hasOwn(child, name)) delta[name] = { op: 'drop' };
  return delta;
}

/** Applies a delta to a parent's channels; shares unchanged snapshots with the parent (they are immutable). */
export function applyDelta(
  parent: Readonly<Record<string, ChannelSnapshot>>,
  delta: CheckpointDelta,
  checkpointId: string,
  /** The caller owns `parent` (freshly parsed): append in place instead of copying the history. */
  inPlace = false,
): Record<string, ChannelSnapshot> {
  const out: Record<string, ChannelSnapshot> = inPlace
    ? (parent as Record<string, ChannelSnapshot>)
    : { ...parent };
  for (const [name, change] of Object.entries(delta)) {
    const prior = out[name];
    const version =
      change.op === 'put' ? change.snapshot.version : change.op === 'append' ? change.version : null;
    // Writers refuse a version going back (version_regression): a row that says so is not one they wrote.
    if (prior && version !== null && version < prior.version)
      throw new CheckpointError(
        'corrupt_row',
        `checkpoint ${checkpointId}: channel "${name}" goes back from version ${prior.version} to ${version}`,
        checkpointId,
        name,
      );
    switch (change.op) {
      case 'put':
        out[name] = change.snapshot;
        break;
      case 'drop':
        delete out[name];
        break;
      case 'append': {
        const prev = out[name];
        const base = prev ? appendable(prev) : undefined;
        if (!prev || !base) {
          throw new CheckpointError(
            'corrupt_row',
            `checkpoint ${checkpointId}: append to channel "${name}", which is not an accumulating channel in its parent`,
            checkpointId,
            name,
          );
        }
        if (inPlace) {
          for (const item of change.items) base.items.push(item);
          out[name] = withItems(prev, change.version, base.items);
        } else {
          out[name] = withItems(prev, change.version, [...base.items, ...change.items]);
        }
        break;
      }
      default: {
        const never: never = change;
        throw new CheckpointError(
          'corrupt_row',
          `checkpoint ${checkpointId}: unknown delta op ${JSON.stringify(never)}`,
        );
      }
    }
  }
  return inPlace ? out : sortKeys(out);
}

/** Channel maps are kept in sorted key order so JSON.stringify output is stable across hydrations. */
export function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key] as T;
  return out;
}

/** Shape-checks a delta read back from storage; anything else is a corrupt row. */
export function parseDelta(value: unknown, checkpointId: string): CheckpointDelta {
  const corrupt = (why: string): never => {
    throw new CheckpointError('corrupt_row', `checkpoint ${checkpointId}: delta ${why}`, checkpointId);
  };
  if (!isPlainObject(value)) return corrupt('is not an object');
  for (const [name, change] of Object.entries(value)) {
    if (name === '__proto__') return corrupt('names the channel __proto__, which JavaScript objects reserve');
    if (!isPlainObject(change)) return corrupt(`for "${name}" is not an object`);
    if (change.op === 'drop') continue;
    if (change.op === 'append') {
      if (
        !Number.isSafeInteger(change.version) ||
        !Array.isArray(change.items) ||
        !isJsonValue(change.items)
      ) {
        return corrupt(`append for "${name}" is malformed`);
      }
      continue;
    }
    if (change.op !== 'put' || !isPlainObject(change.snapshot))
      return corrupt(`for "${name}" has an unknown op`);
    try {
      parseChannels({ [name]: change.snapshot });
    } catch (error) {
      return corrupt(`puts an invalid snapshot (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  return value as CheckpointDelta;
}
