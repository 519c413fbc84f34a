import { SingleValueChannel, singleValueState } from './single-value.js';

/** Holds the last value written. At most one write per step: two are ambiguous and refused. */
export class LastValueChannel extends SingleValueChannel {
  readonly kind = 'last_value' as const;

  /** Snapshot value: `{"value": X}`, or `{}` while nothing was written. */
  static restore(value: unknown, version: number): LastValueChannel {
    return new LastValueChannel(singleValueState('last_value', value), version);
  }

  protected onNoWrite(): boolean {
    return false;
  }
}
