import type { JsonValue } from '@agentlane/contract';
import { CheckpointError } from '../errors.js';
import { isJsonValue, isPlainObject } from '../json.js';
import { BaseChannel, badValue } from './channel.js';

/**
 * A bounded key → value map that evicts the least recently written key past `capacity`.
 * A write is `{"key": k, "value": v}` or `{"key": k, "delete": true}`. Reads never reorder, so reading
 * cannot change a snapshot. The layout below is private: only the round-trip through `value` is contract.
 */
export class DataChannel extends BaseChannel {
  readonly kind = 'data_channel' as const;
  readonly capacity: number;
  /** Map iteration order is insertion order: oldest write first. */
  private readonly entries: Map<string, JsonValue>;

  constructor(capacity: number, entries: Iterable<readonly [string, JsonValue]> = [], version = 0) {
    super(version);
    if (!Number.isInteger(capacity) || capacity < 1)
      badValue('data_channel', 'needs an integer capacity >= 1');
    this.capacity = capacity;
    this.entries = new Map(entries);
    if (this.entries.size > capacity) badValue('data_channel', 'holds more entries than its capacity');
  }

  /** Snapshot value: `{"capacity": n, "entries": [[key, value], ...]}`, least recently written first. */
  static restore(value: unknown, version: number): DataChannel {
    if (!isPlainObject(value)) return badValue('data_channel', 'must be an object');
    const { capacity, entries } = value;
    if (typeof capacity !== 'number') return badValue('data_channel', 'needs a number "capacity"');
    const pairs: [string, JsonValue][] = [];
    if (!Array.isArray(entries)) return badValue('data_channel', 'needs an "entries" array');
    for (const entry of entries) {
      if (
        !Array.isArray(entry) ||
        entry.length !== 2 ||
        typeof entry[0] !== 'string' ||
        !isJsonValue(entry[1])
      ) {
        return badValue('data_channel', 'entries must be [string, JSON] pairs');
      }
      pairs.push([entry[0], entry[1]]);
    }
    if (new Set(pairs.map(([k]) => k)).size !== pairs.length)
      return badValue('data_channel', 'has a duplicate key');
    if (Object.keys(value).length !== 2)
      return badValue('data_channel', 'may only have "capacity" and "entries"');
    return new DataChannel(capacity, pairs, version);
  }

  protected apply(values: readonly JsonValue[]): boolean {
    let changed = false;
    for (const write of values) {
      if (!isPlainObject(write) || typeof write.key !== 'string') {
        throw new CheckpointError(
          'invalid_update',
          'data_channel writes are {"key", "value"} or {"key", "delete": true}',
        );
      }
      if (write.delete === true) {
        changed = this.entries.delete(write.key) || changed;
        continue;
      }
      if (!Object.hasOwn(write, 'value'))
        throw new CheckpointError('invalid_update', 'data_channel write needs "value"');
      this.entries.delete(write.key);
      this.entries.set(write.key, write.value as JsonValue);
      changed = true;
      for (const oldest of this.entries.keys()) {
        if (this.entries.size <= this.capacity) break;
        this.entries.delete(oldest);
      }
    }
    return changed;
  }

  lookup(key: string): JsonValue | undefined {
    return this.entries.get(key);
  }

  get(): JsonValue {
    return Object.fromEntries(this.entries);
  }

  isAvailable(): boolean {
    return true;
  }

  protected snapshotValue(): JsonValue {
    return { capacity: this.capacity, entries: [...this.entries].map(([k, v]) => [k, v]) };
  }
}
