import { Type } from 'typebox';
import { STAGE_IDS } from '../checkpoint.js';
import { closedObject, count, id, nullableString } from './common.js';
import { SessionViewSchema } from './rest-session.js';

export const ForkedFromSchema = closedObject(
  {
    threadId: id('The origin thread.'),
    checkpointId: Type.Optional(
      id('The origin checkpoint a checkpoint fork continues from; absent for a native fork after a run.'),
    ),
    stageId: Type.Enum([...STAGE_IDS], {
      description: 'The stage the checkpoint was taken at; post-turn for a native fork.',
    }),
    at: Type.String({
      description:
        "The checkpoint's createdAt, or when the run a native fork follows ended: the origin's events with ts up to it.",
    }),
    runId: nullableString(
      'The origin run the checkpoint was taken in (null when none was: a fork’s copy), or the run a native fork follows.',
    ),
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
    checkpointId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Fork from this root checkpoint (engines whose state is in agentlane’s checkpoints).',
      }),
    ),
    runId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Fork after this run’s turn (engines that fork their own sessions; some only after the latest run).',
      }),
    ),
    title: Type.Optional(Type.String({ maxLength: 500, description: "Default: the origin's + ' (fork)'." })),
  },
  {
    title: 'ForkRequest',
    description:
      '`POST /sessions/:id/fork` names one fork point, `checkpointId` or `runId` (a request with both or neither is refused with 400).',
  },
);

export const ForkReplySchema = closedObject(
  {
    session: SessionViewSchema,
    forkedFrom: ForkedFromSchema,
    checkpointId: Type.Optional(
      id("The new thread's own copy of the checkpoint (checkpoint forks): its first run starts from it."),
    ),
  },
  { title: 'ForkReply', description: 'The 201 answer of `POST /sessions/:id/fork`.' },
);
