import { Type } from 'typebox';
import { SCHEMA_VERSION } from '../envelope.js';
import { CANONICAL_EVENT_KINDS } from '../events.js';
import { closedObject, count, id, timestamp } from './common.js';
import { CanonicalEventKindSchema, CanonicalEventSchema } from './events.js';

/**
 * `<field>` must equal the carried event's kind. JSON Schema cannot compare two fields, so the rule is spelled
 * out once per kind as if/then; both validators (TypeBox and any 2020-12 validator) enforce it.
 */
function kindMatchesEvent(field: 'type' | 'kind') {
  return CANONICAL_EVENT_KINDS.map((kind) => ({
    if: { type: 'object', required: [field], properties: { [field]: { const: kind } } },
    // biome-ignore lint/suspicious/noThenProperty: the JSON Schema if/then keyword; this object is never awaited.
    then: {
      type: 'object',
      description: `event.kind must equal ${field} (${JSON.stringify(kind)})`,
      properties: { event: { type: 'object', properties: { kind: { const: kind } } } },
    },
  }));
}

const namespace = Type.Array(Type.String({ minLength: 1 }), {
  description: "Child session ids from the thread's root, for events of child sessions / sub-agents.",
});
const deliverySeq = Type.Integer({
  minimum: 1,
  description: 'Thread-wide delivery cursor: only increases, never reused. SSE `id:` is this number.',
});
const revision = Type.Integer({
  minimum: 1,
  description: '1 for the first version of an eventId, then 2, 3, ...',
});
const provisional = Type.Boolean({
  description:
    "True until the run's canonicalization-complete record exists; until then the row is working state.",
});

export const DeliveryRowSchema = closedObject(
  {
    threadId: id('The thread.'),
    deliverySeq,
    eventId: id('The event id (stable per run and native event).'),
    revision,
    runId: id('The run.'),
    seq: count("The event's seq within the run."),
    // Typed `string` for readers of old rows, but a row is only written with one of the canonical kinds.
    kind: Type.Unsafe<string>({
      type: 'string',
      enum: [...CANONICAL_EVENT_KINDS],
      description: 'The event kind (equals event.kind).',
    }),
    schemaVersion: Type.Integer({ minimum: 1, maximum: SCHEMA_VERSION, description: 'Contract version.' }),
    provisional,
    namespace: Type.Optional(namespace),
    event: CanonicalEventSchema,
  },
  {
    title: 'DeliveryRow',
    description:
      'One stored canonical event plus its delivery fields; revisions are new rows, never updates.',
    allOf: kindMatchesEvent('kind'),
  },
);

export const CanonicalStreamEventSchema = closedObject(
  {
    type: CanonicalEventKindSchema,
    deliverySeq,
    revision,
    provisional,
    namespace: Type.Optional(namespace),
    event: CanonicalEventSchema,
  },
  {
    title: 'CanonicalStreamEvent',
    description: 'A delivered canonical event on the wire: `type` is its kind.',
    allOf: kindMatchesEvent('type'),
  },
);

export const StreamOpenedEventSchema = closedObject(
  {
    type: Type.Literal('stream.opened', { description: 'Wire-only frame type.' }),
    threadId: id('The thread.'),
    after: count('The stream delivers rows with deliverySeq strictly greater than this.'),
    headDeliverySeq: count('The highest deliverySeq committed when the stream opened.'),
  },
  { title: 'StreamOpenedEvent', description: 'The first frame of every thread stream.' },
);

export const RunStatusSchema = Type.Enum(['queued', 'running', 'completed', 'failed'], {
  description: 'Run status.',
});

export const RunStatusEventSchema = closedObject(
  {
    type: Type.Literal('run.status', { description: 'Wire-only frame type.' }),
    threadId: id('The thread.'),
    runId: id('The run.'),
    status: RunStatusSchema,
    deliverySeq: Type.Optional(count('The delivery cursor at the time of the change.')),
    statusVersion: Type.Optional(
      count(
        "Counts the run's status changes (1 = queued); signals may arrive out of order, the highest version is the latest status.",
      ),
    ),
  },
  { title: 'RunStatusEvent', description: "A run's lifecycle status changed." },
);

export const RunCanonicalizedEventSchema = closedObject(
  {
    type: Type.Literal('run.canonicalized', { description: 'Wire-only frame type.' }),
    threadId: id('The thread.'),
    runId: id('The run.'),
    status: RunStatusSchema,
    lastDeliverySeq: count('Rows of this run with deliverySeq <= this are final.'),
    completedAt: timestamp('When the canonicalization-complete record was written.'),
  },
  {
    title: 'RunCanonicalizedEvent',
    description: "The completion signal: the run's durable canonicalization-complete record now exists.",
  },
);

export const SyncConflictEventSchema = closedObject(
  {
    type: Type.Literal('sync.conflict', { description: 'Wire-only frame type.' }),
    sessionId: id('The session.'),
    key: Type.String({ description: 'The state key both changes wrote.' }),
    changes: Type.Array(
      closedObject(
        {
          clientId: id('The writing client.'),
          version: count("The client's own vector entry after the write."),
          value: Type.Unknown({ description: 'The value it wrote.' }),
        },
        { description: 'One of the concurrent changes.' },
      ),
      { description: 'The concurrent changes to the same key, neither of which has seen the other.' },
    ),
  },
  {
    title: 'SyncConflictEvent',
    description: 'Concurrent writes to one key were detected by vector comparison.',
  },
);

export const StreamClosingEventSchema = closedObject(
  {
    type: Type.Literal('stream.closing', { description: 'Wire-only frame type.' }),
    reason: Type.Enum(['shutdown', 'slow_consumer', 'run_settled'], { description: 'Why the stream ends.' }),
    retryMs: count('Reconnect after this many milliseconds.'),
  },
  { title: 'StreamClosingEvent', description: 'Sent before the server ends a stream on purpose.' },
);

export const StreamEventSchema = Type.Union(
  [
    CanonicalStreamEventSchema,
    StreamOpenedEventSchema,
    RunStatusEventSchema,
    RunCanonicalizedEventSchema,
    SyncConflictEventSchema,
    StreamClosingEventSchema,
  ],
  {
    title: 'StreamEvent',
    description:
      'One SSE `data:` frame. Readers must skip a frame whose `type` they do not know instead of failing; this ' +
      'schema describes the known types only.',
  },
);
