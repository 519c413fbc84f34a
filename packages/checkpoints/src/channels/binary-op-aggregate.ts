import type { JsonValue } from '@agentlane/contract';
import { isJsonValue, isPlainObject } from '../json.js';
import { BaseChannel, badValue } from './channel.js';
import { getReducer, type Reducer } from './reducers.js';

/** Folds every write into the current value with a registered reducer (append, merge, sum, ...). */
export class BinaryOpAggregateChannel extends BaseChannel {
  readonly kind = 'binary_op_aggregate' as const;
  readonly reducerName: string;
  private readonly reducer: Reducer;
  private value: JsonValue;

  constructor(reducerName: string, value?: JsonValue, version = 0) {
    super(version);
    this.reducerName = reducerName;
    this.reducer = getReducer(reducerName);
    this.value = value === undefined ? this.reducer.identity() : value;
  }

  /** Snapshot value: `{"reducer": name, "value": X}`. */
  static restore(value: unknown, version: number): BinaryOpAggregateChannel {
    if (!isPlainObject(value)) return badValue('binary_op_aggregate', 'must be an object');
    if (typeof value.reducer !== 'string') return badValue('binary_op_aggregate', 'needs a string "reducer"');
    if (!Object.hasOwn(value, 'value') || !isJsonValue(value.value)) {
      return badValue('binary_op_aggregate', 'needs a JSON "value"');
    }
    if (Object.keys(value).length !== 2)
      return badValue('binary_op_aggregate', 'may only have "reducer" and "value"');
    return new BinaryOpAggregateChannel(value.reducer, value.value, version);
  }

  protected apply(values: readonly JsonValue[]): boolean {
    if (values.length === 0) return false;
    let next = this.value;
    for (const update of values) next = this.reducer.reduce(next, update);
    this.value = next;
    return true;
  }

  get(): JsonValue {
    return this.value;
  }

  isAvailable(): boolean {
    return true;
  }

  protected snapshotValue(): JsonValue {
    return { reducer: this.reducerName, value: Array.isArray(this.value) ? [...this.value] : this.value };
  }
}
