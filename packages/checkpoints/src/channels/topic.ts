import type { JsonValue } from '@agentlane/contract';
import { isJsonValue, isPlainObject } from '../json.js';
import { BaseChannel, badValue } from './channel.js';

/**
 * A list of every value written, in write order (one write = one item; arrays are not flattened).
 * With `accumulate: false` the list is cleared at the start of each step, so it holds one step's writes.
 */
export class TopicChannel extends BaseChannel {
  readonly kind = 'topic' as const;
  readonly accumulate: boolean;
  private items: JsonValue[];

  constructor(options: { accumulate?: boolean; items?: readonly JsonValue[] } = {}, version = 0) {
    super(version);
    this.accumulate = options.accumulate ?? true;
    this.items = [...(options.items ?? [])];
  }

  /** Snapshot value: `{"accumulate": bool, "items": [...]}`. */
  static restore(value: unknown, version: number): TopicChannel {
    if (!isPlainObject(value)) return badValue('topic', 'must be an object');
    if (typeof value.accumulate !== 'boolean') return badValue('topic', 'needs a boolean "accumulate"');
    if (!Array.isArray(value.items) || !isJsonValue(value.items))
      return badValue('topic', 'needs a JSON array "items"');
    if (Object.keys(value).length !== 2) return badValue('topic', 'may only have "accumulate" and "items"');
    return new TopicChannel({ accumulate: value.accumulate, items: value.items }, version);
  }

  protected apply(values: readonly JsonValue[]): boolean {
    let changed = false;
    if (!this.accumulate && this.items.length > 0) {
      this.items = [];
      changed = true;
    }
    if (values.length > 0) {
      this.items.push(...values);
      changed = true;
    }
    return changed;
  }

  get(): JsonValue {
    return this.items.length > 0 ? [...this.items] : this.empty();
  }

  isAvailable(): boolean {
    return this.items.length > 0;
  }

  protected snapshotValue(): JsonValue {
    return { accumulate: this.accumulate, items: [...this.items] };
  }
}
