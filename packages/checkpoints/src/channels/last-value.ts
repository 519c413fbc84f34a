import type { JsonValue } from '@agentlane/contract';
import { CheckpointError } from '../errors';
import { isJsonValue, isPlainObject } from '../json';
import { BaseChannel, badValue } from './channel';

/** Holds the last value written. At most one write per step: two are ambiguous and refused. */
export class LastValueChannel extends BaseChannel {
  readonly kind = 'last_value' as const;
  private hasValue: boolean;
  private value: JsonValue;

  constructor(state: { value?: JsonValue } = {}, version = 0) {
    super(version);
    this.hasValue = Object.hasOwn(state, 'value');
    this.value = state.value ?? null;
  }

  /** Snapshot value: `{"value": X}`, or `{}` while nothing was written. */
  static restore(value: unknown, version: number): LastValueChannel {
    if (!isPlainObject(value)) return badValue('last_value', 'must be an object');
    if (Object.keys(value).some((k) => k !== 'value')) return badValue('last_value', 'may only have "value"');
    if (Object.hasOwn(value, 'value') && !isJsonValue(value.value))
      return badValue('last_value', 'is not JSON');
    return new LastValueChannel(value as { value?: JsonValue }, version);
  }

  protected apply(values: readonly JsonValue[]): boolean {
    if (values.length === 0) return false;
    if (values.length > 1) {
      throw new CheckpointError(
        'invalid_update',
        `last_value channel got ${values.length} writes in one step`,
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
