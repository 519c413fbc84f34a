import { CHANNEL_KINDS, type ChannelKind, type ChannelSnapshot } from '@agentlane/contract';
import { CheckpointError } from '../errors.js';
import { BinaryOpAggregateChannel } from './binary-op-aggregate.js';
import type { Channel } from './channel.js';
import { DataChannel } from './data-channel.js';
import { EphemeralValueChannel } from './ephemeral-value.js';
import { LastValueChannel } from './last-value.js';
import { NamedBarrierChannel } from './named-barrier.js';
import { TopicChannel } from './topic.js';

export function isChannelKind(value: unknown): value is ChannelKind {
  return typeof value === 'string' && (CHANNEL_KINDS as readonly string[]).includes(value);
}

/** Rebuilds a live channel from its snapshot, refusing an unknown kind or a value of the wrong shape. */
export function restoreChannel(name: string, snapshot: ChannelSnapshot): Channel {
  const { kind, version, value } = snapshot;
  if (!isChannelKind(kind)) {
    throw new CheckpointError(
      'unknown_channel_kind',
      `channel "${name}" has unknown kind ${JSON.stringify(kind)}`,
      undefined,
      name,
    );
  }
  if (!Number.isSafeInteger(version) || version < 0) {
    throw new CheckpointError(
      'invalid_checkpoint',
      `channel "${name}" version must be an integer >= 0`,
      undefined,
      name,
    );
  }
  try {
    switch (kind) {
      case 'last_value':
        return LastValueChannel.restore(value, version);
      case 'binary_op_aggregate':
        return BinaryOpAggregateChannel.restore(value, version);
      case 'topic':
        return TopicChannel.restore(value, version);
      case 'ephemeral_value':
        return EphemeralValueChannel.restore(value, version);
      case 'named_barrier':
        return NamedBarrierChannel.restore(value, version);
      case 'data_channel':
        return DataChannel.restore(value, version);
      default: {
        const never: never = kind;
        throw new CheckpointError('unknown_channel_kind', `unknown kind ${String(never)}`);
      }
    }
  } catch (error) {
    if (error instanceof CheckpointError && error.field === undefined) {
      throw new CheckpointError(error.code, `channel "${name}": ${error.message}`, undefined, name);
    }
    throw error;
  }
}
