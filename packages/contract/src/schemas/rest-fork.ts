import { Type } from 'typebox';
import { STAGE_IDS } from '../checkpoint.js';
import { closedObject, count, id, nullableString } from './common.js';
import { SessionViewSchema } from './rest-session.js';

export const ForkedFromSchema = closedObject(
  {
    threadId: id('The origin thread.'),
    checkpointId: id('The origin checkpoint the new thread continues from.'),
    stageId: Type.Enum([...STAGE_IDS], { description: 'The stage the checkpoint was taken at.' }),
    at: Type.String({ description: "The checkpoint's createdAt: the origin's events with ts up to it." }),
    runId: nullableString('The origin run the checkpoint was taken in; null when none was (a fork’s copy).'),
    headSeq: count("The origin's head deliverySeq when it was forked."),
  },
  {
    title: 'ForkedFrom',
    description:
      "A forked thread's `metadata.forkedFrom`: its history is the origin's events delivered by `headSeq` first received at or before `at`, and after a `post-turn` checkpoint the rest of run `runId`.",
  },
);

export const ForkRequestSchema = closedObject(
  {
    checkpointId: Type.String({ minLength: 1, maxLength: 200, description: 'A root checkpoint.' }),
    title: Type.Optional(Type.String({ maxLength: 500, description: "Default: the origin's + ' (fork)'." })),
  },
  {
    title: 'ForkRequest',
    description: "`POST /sessions/:id/fork`: continue from one of the session's checkpoints.",
  },
);

export const ForkReplySchema = closedObject(
  {
    session: SessionViewSchema,
    forkedFrom: ForkedFromSchema,
    checkpointId: id("The new thread's own copy of the checkpoint: its first run starts from it."),
  },
  { title: 'ForkReply', description: 'The 201 answer of `POST /sessions/:id/fork`.' },
);
