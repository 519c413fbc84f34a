import type { JsonValue } from '@agentlane/contract';
import { CheckpointError } from '../errors.js';
import { isJsonValue, isPlainObject } from '../json.js';
import { BaseChannel, badValue } from './channel.js';

type SingleValueKind = 'last_value' | 'ephemeral_value';

/**
 * A channel that holds at most one value, written at most once per step (two writes are ambiguous and
 * refused). Its snapshot value is `{"value": X}` while it holds one and `{}` otherwise; subclasses only
 * decide what a step without a write does.
 */
export abstract class SingleValueChannel extends BaseChannel {
  abstract override readonly kind: SingleValueKind;
  protected hasValue: boolean;
  protected value: JsonValue;

  constructor(state: { value?: JsonValue } = {}, version = 0) {
    super(version);
    this.hasValue = Object.hasOwn(state, 'value');
    this.value = state.value ?? null;
  }

  /** What a step without a write does; returns true when it changed the state. */
  protected abstract onNoWrite(): boolean;

  protected apply(values: readonly JsonValue[]): boolean {
    if (values.length === 0) return this.onNoWrite();
    if (values.length > 1) {
      throw new CheckpointError(
        'invalid_update',
        `${this.kind} channel got ${values.length} writes in one step`,
      );
    }
    this.hasValue = true;
    this.value = values[0] as JsonValue;
    return true;
  }

  get(): JsonValue {
    return this.hasValue ? this.value : this.empty();
  }

  isAvailable(): boolean {
    return this.hasValue;
  }

  protected snapshotValue(): JsonValue {
    return this.hasValue ? { value: this.value } : {};
  }
}

/** Checks a `{"value"?: X}` snapshot value for a single-value channel of `kind`. */
export function singleValueState(kind: SingleValueKind, value: unknown): { value?: JsonValue } {
  if (!isPlainObject(value)) return badValue(kind, 'must be an object');
  if (Object.keys(value).some((k) => k !== 'value')) return badValue(kind, 'may only have "value"');
  if (Object.hasOwn(value, 'value') && !isJsonValue(value.value)) return badValue(kind, 'is not JSON');
  return value as { value?: JsonValue };
}
