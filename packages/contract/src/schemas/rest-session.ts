import { Type } from 'typebox';
import { THREAD_ACTIVITY_STATUSES } from '../rest/session.js';
import { NegotiatedCapabilitiesSchema } from './capabilities.js';
import { closedObject, count, id, JsonObjectMapSchema, nullableString } from './common.js';

export const ThreadActivitySchema = closedObject(
  {
    status: Type.Enum([...THREAD_ACTIVITY_STATUSES], {
      description: "The latest run: 'waiting' while it has an unanswered approval or question.",
    }),
    runId: nullableString('The latest run, null before any run.'),
    firstPrompt: nullableString("The first run's prompt: a title for threads the engine never named."),
    headSeq: count("The thread's latest deliverySeq (0 before any event)."),
  },
  {
    title: 'ThreadActivity',
    description:
      "A thread at a glance, derived from the store's rows on each read: the latest run's state, the first prompt, the head deliverySeq.",
  },
);

export const SessionViewSchema = closedObject(
  {
    id: id('The thread id.'),
    engine: Type.String({ description: 'The configured engine the thread runs on (an open string).' }),
    title: nullableString('The title, when there is one.'),
    workDir: nullableString('The working directory, when there is one.'),
    metadata: JsonObjectMapSchema,
    createdAt: Type.String({ description: 'When the thread was created (ISO 8601).' }),
    updatedAt: Type.String({ description: 'When the thread last changed (ISO 8601).' }),
    provider: nullableString('The provider of the harness session, once there is one.'),
    nativeSessionId: nullableString("The engine's own session id, once there is one."),
    protocolVersion: nullableString('The protocol version the engine negotiated.'),
    capabilities: NegotiatedCapabilitiesSchema,
    generation: count('Bumped on every change of the session; a stale expectedGeneration is refused.'),
    activity: Type.Optional(ThreadActivitySchema),
  },
  {
    title: 'SessionView',
    description: 'The `/sessions` resource: a thread plus its harness session (one per thread).',
  },
);
