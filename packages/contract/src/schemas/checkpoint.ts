import { Type } from 'typebox';
import { CHANNEL_KINDS, STAGE_IDS } from '../checkpoint.js';
import { closedObject, count, id, timestamp, ULID_PATTERN } from './common.js';

export const ChannelSnapshotSchema = closedObject(
  {
    kind: Type.Enum([...CHANNEL_KINDS], { description: 'The channel kind.' }),
    version: count('Monotonically increasing per channel.'),
    value: Type.Unknown({ description: "The channel's value; its shape depends on `kind`." }),
  },
  { title: 'ChannelSnapshot', description: "One channel's state in a checkpoint." },
);

export const ChannelsSchema = Type.Record(Type.String(), ChannelSnapshotSchema, {
  description: 'Channel snapshots keyed by channel name.',
});

export const CheckpointSchema = closedObject(
  {
    id: Type.String({ pattern: ULID_PATTERN, description: 'ULID of the checkpoint.' }),
    sessionId: id('The session.'),
    stageId: Type.Enum([...STAGE_IDS], { description: 'The stage the checkpoint was taken at.' }),
    createdAt: timestamp('When it was taken.'),
    schemaVersion: Type.Integer({ minimum: 1, description: 'Checkpoint envelope version.' }),
    channels: ChannelsSchema,
    parentCheckpointId: Type.Optional(
      Type.String({ pattern: ULID_PATTERN, description: 'The previous one.' }),
    ),
  },
  { title: 'Checkpoint', description: 'The checkpoint envelope: per-channel snapshots of a session.' },
);
