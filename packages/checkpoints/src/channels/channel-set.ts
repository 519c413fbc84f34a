import type { ChannelSnapshot, JsonValue } from '@agentlane/contract';
import { CheckpointError } from '../errors.js';
import type { Channel } from './channel.js';
import { restoreChannel } from './registry.js';

/** One write of one step: which channel, which value. */
export interface ChannelWrite {
  channel: string;
  value: JsonValue;
}

/**
 * The live channels of a session. `step` applies one step's writes the way a Pregel superstep does:
 * every channel sees all of its writes together, and channels without writes see an empty step
 * (which is what clears ephemeral values and non-accumulating topics).
 */
export class ChannelSet {
  private readonly channels = new Map<string, Channel>();

  constructor(channels: Record<string, Channel> = {}) {
    for (const [name, channel] of Object.entries(channels)) this.channels.set(name, channel);
  }

  static restore(snapshots: Record<string, ChannelSnapshot>): ChannelSet {
    const set = new ChannelSet();
    for (const [name, snapshot] of Object.entries(snapshots))
      set.channels.set(name, restoreChannel(name, snapshot));
    return set;
  }

  add(name: string, channel: Channel): this {
    if (this.channels.has(name))
      throw new CheckpointError('invalid_argument', `channel "${name}" already exists`);
    this.channels.set(name, channel);
    return this;
  }

  channel(name: string): Channel {
    const channel = this.channels.get(name);
    if (!channel)
      throw new CheckpointError('invalid_argument', `no channel named "${name}"`, undefined, name);
    return channel;
  }

  names(): string[] {
    return [...this.channels.keys()];
  }

  /** Applies one step. All writes are checked against known channels first, so a bad step changes nothing. */
  step(writes: readonly ChannelWrite[]): string[] {
    const grouped = new Map<string, JsonValue[]>();
    for (const write of writes) {
      if (!this.channels.has(write.channel)) {
        throw new CheckpointError(
          'invalid_update',
          `write to unknown channel "${write.channel}"`,
          undefined,
          write.channel,
        );
      }
      const list = grouped.get(write.channel);
      if (list) list.push(write.value);
      else grouped.set(write.channel, [write.value]);
    }
    // Dry-run on restored copies so that a refused write (e.g. two writes to a last_value) leaves no channel half-updated.
    // Topics accept any write, so only the other written channels need the trial.
    for (const [name, values] of grouped) {
      const channel = this.channel(name);
      if (channel.kind !== 'topic') restoreChannel(name, channel.snapshot()).update(values);
    }
    const changed: string[] = [];
    for (const [name, channel] of this.channels) {
      if (channel.update(grouped.get(name) ?? [])) changed.push(name);
    }
    return changed;
  }

  snapshot(): Record<string, ChannelSnapshot> {
    const out: Record<string, ChannelSnapshot> = {};
    for (const name of [...this.channels.keys()].sort())
      out[name] = (this.channels.get(name) as Channel).snapshot();
    return out;
  }
}
