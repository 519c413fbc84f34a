import type { ChannelKind, ChannelSnapshot, JsonValue } from '@agentlane/contract';
import { CheckpointError } from '../errors.js';

/**
 * One named slot of session state. A step hands each channel all of that step's writes at once
 * (`update`), which is how "two writes in one step" and "visible for one step" are decided.
 */
export interface Channel {
  readonly kind: ChannelKind;
  /** Goes up by one every time the channel's state changes; never goes down. */
  readonly version: number;
  /** Applies one step's writes (possibly none); returns true when the state changed. */
  update(values: readonly JsonValue[]): boolean;
  /** The current value; throws `empty_channel` when there is none. */
  get(): JsonValue;
  isAvailable(): boolean;
  /** Marks the value as read (only the barrier reacts: it resets once consumed). Returns true when it changed. */
  consume(): boolean;
  snapshot(): ChannelSnapshot;
}

/** Shared version bookkeeping: subclasses only say whether a step changed them. */
export abstract class BaseChannel implements Channel {
  abstract readonly kind: ChannelKind;
  private currentVersion: number;

  constructor(version: number) {
    this.currentVersion = version;
  }

  get version(): number {
    return this.currentVersion;
  }

  update(values: readonly JsonValue[]): boolean {
    const changed = this.apply(values);
    if (changed) this.currentVersion++;
    return changed;
  }

  consume(): boolean {
    const changed = this.onConsume();
    if (changed) this.currentVersion++;
    return changed;
  }

  snapshot(): ChannelSnapshot {
    return { kind: this.kind, version: this.currentVersion, value: this.snapshotValue() };
  }

  protected onConsume(): boolean {
    return false;
  }

  protected empty(): never {
    throw new CheckpointError('empty_channel', `${this.kind} channel has no value`);
  }

  abstract get(): JsonValue;
  abstract isAvailable(): boolean;
  protected abstract apply(values: readonly JsonValue[]): boolean;
  protected abstract snapshotValue(): JsonValue;
}

/** A refusal while decoding a snapshot value; the caller adds which channel it was. */
export function badValue(kind: ChannelKind, why: string): never {
  throw new CheckpointError('invalid_channel_value', `${kind} snapshot value ${why}`);
}
