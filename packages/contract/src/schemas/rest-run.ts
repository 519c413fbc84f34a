import { Type } from 'typebox';
import { closedObject, id, JsonObjectMapSchema, nullableString } from './common.js';
import { RunStatusSchema } from './delivery.js';

// Timestamps are plain strings here: a reply serializer checks `format` inside a union and would refuse a
// row the store wrote in another form.

export const RunViewSchema = closedObject(
  {
    runId: id('The run.'),
    threadId: id('The thread.'),
    parentRunId: nullableString('The run this one answers, when it is a reply.'),
    status: RunStatusSchema,
    prompt: Type.String({ description: 'The prompt.' }),
    options: JsonObjectMapSchema,
    createdAt: Type.String({ description: 'When the run was queued (ISO 8601).' }),
    startedAt: nullableString('When it started running (ISO 8601).'),
    endedAt: nullableString('When it settled (ISO 8601).'),
    error: nullableString('Why it failed.'),
    outcome: Type.Union(
      [Type.Literal('completed'), Type.Literal('failed'), Type.Literal('cancelled'), Type.Null()],
      {
        description:
          'How the settled run ended (null until it settles). A run stopped by run.cancel is status "completed" with outcome "cancelled" and no error.',
      },
    ),
    canonicalizedAt: nullableString(
      "When the run's canonicalization-complete record was written (ISO 8601).",
    ),
  },
  { title: 'RunView', description: 'The `/runs` resource.' },
);
