import { Type } from 'typebox';
import { STAGE_IDS } from '../checkpoint.js';
import { closedObject, count } from './common.js';

export const CheckpointSummarySchema = closedObject(
  {
    checkpointId: Type.String({ description: 'The checkpoint.' }),
    sessionId: Type.String({ description: 'The session.' }),
    namespace: Type.String({ description: "Chain inside the session; '' is the root." }),
    stageId: Type.Enum([...STAGE_IDS], { description: 'The stage it was taken at.' }),
    createdAt: Type.String({ description: 'When it was taken.' }),
    schemaVersion: Type.Integer({ description: 'Checkpoint envelope version.' }),
    parentCheckpointId: Type.Union([Type.String(), Type.Null()], { description: 'The previous one.' }),
    storage: Type.Enum(['full', 'delta'], {
      description: 'How the row is stored; reads always hydrate fully.',
    }),
    bytes: count('Bytes of the stored channel payload.'),
    pinned: Type.Boolean({ description: 'Kept by pruning.' }),
  },
  { title: 'CheckpointSummary', description: 'A checkpoint row without its payload.' },
);

export const CheckpointListSchema = closedObject(
  {
    checkpoints: Type.Array(CheckpointSummarySchema, { description: 'Newest first.' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'The next page, null at the end.' }),
  },
  {
    title: 'CheckpointList',
    description: "`GET /sessions/:id/checkpoints`: one page of a session's checkpoints.",
  },
);

export const CheckpointErrorBodySchema = closedObject(
  {
    error: closedObject(
      {
        code: Type.String({ description: "A code of the server's status table." }),
        message: Type.String({ description: 'What went wrong.' }),
        field: Type.Optional(Type.String({ description: 'The offending input.' })),
        checkpointId: Type.Optional(Type.String({ description: 'The checkpoint the error is about.' })),
      },
      { description: 'What went wrong, and the checkpoint it is about.' },
    ),
  },
  {
    title: 'CheckpointErrorBody',
    description:
      'An error answer of the checkpoint routes, naming the checkpoint a refusal or corrupt row is about.',
  },
);
