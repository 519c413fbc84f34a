import type { JsonValue } from '@agentlane/contract';
import { CheckpointError } from '../errors';
import { isJsonValue, isPlainObject } from '../json';
import { BaseChannel, badValue } from './channel';

/** A value visible for the step after it was written only; the next step without a write clears it. */
export class EphemeralValueChannel extends BaseChannel {
  readonly kind = 'ephemeral_value' as const;
  private hasValue: boolean;
  private value: JsonValue;

  constructor(state: { value?: JsonValue } = {}, version = 0) {
    super(version);
    this.hasValue = Object.hasOwn(state, 'value');
    this.value = state.value ?? null;
  }

  /** Snapshot value: `{"value": X}` while visible, `{}` otherwise. */
  static restore(value: unknown, version: number): EphemeralValueChannel {
    if (!isPlainObject(value)) return badValue('ephemeral_value', 'must be an object');
    if (Object.keys(value).some((k) => k !== 'value'))
      return badValue('ephemeral_value', 'may only have "value"');
    if (Object.hasOwn(value, 'value') && !isJsonValue(value.value))
      return badValue('ephemeral_value', 'is not JSON');
    return new EphemeralValueChannel(value as { value?: JsonValue }, version);
  }

  protected apply(values: readonly JsonValue[]): boolean {
    if (values.length === 0) {
      if (!this.hasValue) return false;
      this.hasValue = false;
      this.value = null;
      return true;
    }
    if (values.length > 1) {
      throw new CheckpointError(
        'invalid_update',
        `ephemeral_value channel got ${values.length} writes in one step`,
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
