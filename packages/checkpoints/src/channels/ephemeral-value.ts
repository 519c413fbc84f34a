import { SingleValueChannel, singleValueState } from './single-value.js';

/** A value visible for the step after it was written only; the next step without a write clears it. */
export class EphemeralValueChannel extends SingleValueChannel {
  readonly kind = 'ephemeral_value' as const;

  /** Snapshot value: `{"value": X}` while visible, `{}` otherwise. */
  static restore(value: unknown, version: number): EphemeralValueChannel {
    return new EphemeralValueChannel(singleValueState('ephemeral_value', value), version);
  }

  protected onNoWrite(): boolean {
    if (!this.hasValue) return false;
    this.hasValue = false;
    this.value = null;
    return true;
  }
}
