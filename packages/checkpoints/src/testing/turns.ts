import type { ChannelSnapshot, Checkpoint, JsonValue } from '@agentlane/contract';
import { BinaryOpAggregateChannel } from '../channels/binary-op-aggregate.js';
import { ChannelSet } from '../channels/channel-set.js';
import { newCheckpointId } from '../ids.js';
import type { CheckpointSaver } from '../saver.js';

/** A post-turn checkpoint of `channels` (schema version 1, created now), the child of `parentId` when given. */
export function postTurnCheckpoint(
  sessionId: string,
  channels: Record<string, ChannelSnapshot>,
  parentId?: string,
): Checkpoint {
  return {
    id: newCheckpointId(),
    sessionId,
    stageId: 'post-turn',
    createdAt: new Date().toISOString(),
    schemaVersion: 1,
    channels,
    ...(parentId ? { parentCheckpointId: parentId } : {}),
  };
}

/**
 * Puts one post-turn checkpoint per turn, each the child of the previous one, with a `conversation` channel
 * that appends `message(turn)`; returns them oldest first.
 */
export async function putTurns(
  saver: CheckpointSaver,
  sessionId: string,
  turns: number,
  message: (turn: number) => JsonValue,
): Promise<Checkpoint[]> {
  const set = new ChannelSet({ conversation: new BinaryOpAggregateChannel('append') });
  const puts: Checkpoint[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    set.step([{ channel: 'conversation', value: message(turn) }]);
    const cp = postTurnCheckpoint(sessionId, set.snapshot(), puts[puts.length - 1]?.id);
    await saver.put(cp);
    puts.push(cp);
  }
  return puts;
}
