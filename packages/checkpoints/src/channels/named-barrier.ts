import type { JsonValue } from '@agentlane/contract';
import { CheckpointError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { BaseChannel, badValue } from './channel.js';

/** Ready once every named writer has written its own name; consuming it resets the barrier. */
export class NamedBarrierChannel extends BaseChannel {
  readonly kind = 'named_barrier' as const;
  private readonly names: ReadonlySet<string>;
  private readonly seen: Set<string>;

  constructor(names: Iterable<string>, seen: Iterable<string> = [], version = 0) {
    super(version);
    this.names = new Set(names);
    this.seen = new Set(seen);
    for (const name of this.seen) {
      if (!this.names.has(name)) badValue('named_barrier', `has "${name}" in seen but not in names`);
    }
  }

  /** Snapshot value: `{"names": [...sorted], "seen": [...sorted]}`. */
  static restore(value: unknown, version: number): NamedBarrierChannel {
    if (!isPlainObject(value)) return badValue('named_barrier', 'must be an object');
    const { names, seen } = value;
    const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
    if (!strings(names) || !strings(seen))
      return badValue('named_barrier', 'needs string arrays "names" and "seen"');
    if (Object.keys(value).length !== 2) return badValue('named_barrier', 'may only have "names" and "seen"');
    // As snapshotValue writes them (and the docs say): a list that is not is no snapshot of a barrier, and the
    // other runtime refuses it too; a name twice made a barrier that was never ready.
    const sortedOnce = (list: string[]) => list.every((s, i) => i === 0 || (list[i - 1] as string) < s);
    if (!sortedOnce(names) || !sortedOnce(seen))
      return badValue(
        'named_barrier',
        '"names" and "seen" must be sorted (UTF-16 code units), each name once',
      );
    return new NamedBarrierChannel(names, seen, version);
  }

  protected apply(values: readonly JsonValue[]): boolean {
    let changed = false;
    for (const value of values) {
      if (typeof value !== 'string' || !this.names.has(value)) {
        throw new CheckpointError(
          'invalid_update',
          `named_barrier got a write from unknown writer ${JSON.stringify(value)}`,
        );
      }
      if (!this.seen.has(value)) {
        this.seen.add(value);
        changed = true;
      }
    }
    return changed;
  }

  isAvailable(): boolean {
    return this.seen.size === this.names.size;
  }

  get(): JsonValue {
    return this.isAvailable() ? [...this.names].sort() : this.empty();
  }

  protected override onConsume(): boolean {
    if (!this.isAvailable() || this.seen.size === 0) return false;
    this.seen.clear();
    return true;
  }

  protected snapshotValue(): JsonValue {
    return { names: [...this.names].sort(), seen: [...this.seen].sort() };
  }
}
