import {
  CursorErrorBodySchema,
  ErrorBodySchema,
  RunViewSchema,
  SessionViewSchema,
  SyncRequestSchema,
  SyncResponseSchema,
} from '@agentlane/contract';
import { Type } from 'typebox';

// Route schemas: the server validates with these and the OpenAPI document is generated from them. The
// shapes a client reads (views, error bodies, sync) are the contract's; the request bodies are the server's.

const Id = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' });
/** A session (thread) id in a path: what every `/sessions/:id` route accepts. */
export const SessionId = Id;
const Json = Type.Unknown();
const JsonObject = Type.Record(Type.String(), Type.Unknown());

/** The error body of every 4xx/5xx answer (the contract's ErrorBody). */
export const ErrorSchema = ErrorBodySchema;

/** The error body as one status of one route documents it: the same shape, described for that route. */
export const errorResponse = (description: string) => ({ ...ErrorSchema, description });

export const ThreadParams = Type.Object({ id: Id });
export const RunParams = Type.Object({ id: Id });
export const ApprovalParams = Type.Object({ id: Id, approvalId: Id });
export const QuestionParams = Type.Object({ id: Id, questionId: Id });
export const ArtifactParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const SessionView = SessionViewSchema;

export const ListSessionsQuery = Type.Object({
  engine: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
});

export const ListSessionsReply = Type.Object({
  sessions: Type.Array(SessionView),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export const CreateSessionBody = Type.Object(
  {
    engine: Type.String({ minLength: 1, maxLength: 128 }),
    workDir: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    title: Type.Optional(Type.String({ maxLength: 500 })),
    metadata: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);

export const SessionReply = Type.Object({ session: SessionView });

/**
 * A generation a client expects: an integer JSON can carry exactly. A larger one (2^53 and up) reaches the
 * server rounded, and a stale check against a rounded number could pass; it is refused instead.
 */
const Generation = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

export const UpdateSessionBody = Type.Object(
  {
    title: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    metadata: Type.Optional(JsonObject),
    expectedGeneration: Type.Optional(Generation),
  },
  { additionalProperties: false },
);

export const RunView = RunViewSchema;

/** The longest prompt a run takes, in characters (the protocol routes hold their prompts to it too). */
export const MAX_PROMPT_CHARS = 200_000;

export const CreateRunBody = Type.Object(
  {
    prompt: Type.String({ minLength: 1, maxLength: MAX_PROMPT_CHARS }),
    parentRunId: Type.Optional(Id),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    mode: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    expectedGeneration: Type.Optional(Generation),
  },
  { additionalProperties: false },
);

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

export const RunReply = Type.Object({ run: RunView, created: Type.Optional(Type.Boolean()) });

export const ApprovalBody = Type.Object(
  {
    outcome: Type.Union([Type.Literal('selected'), Type.Literal('cancelled')]),
    optionId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const QuestionBody = Type.Object(
  {
    outcome: Type.Union([Type.Literal('answered'), Type.Literal('declined'), Type.Literal('cancelled')]),
    choiceIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 })),
    text: Type.Optional(Type.String({ maxLength: 100_000 })),
  },
  { additionalProperties: false },
);

export const AcceptedReply = Type.Object({ accepted: Type.Boolean() });

// Cursors are strings checked by the route (a plain decimal integer, at most the head): a refusal names the
// head, which a schema error could not.
export const StreamQuery = Type.Object({
  after: Type.Optional(
    Type.String({ description: 'Resume after this deliverySeq (decimal, at most the head)' }),
  ),
});

export const LastEventIdHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      description: 'Resume after this deliverySeq; wins over ?after (a reconnecting EventSource)',
    }),
  ),
});

/** A refused resume cursor: the error and the head the client can resume from. */
export const CursorErrorSchema = CursorErrorBodySchema;

export const SyncBody = SyncRequestSchema;

export const SyncReply = SyncResponseSchema;

export const HealthReply = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('draining')]),
  version: Type.String(),
  store: Type.String(),
  checks: Type.Record(
    Type.String(),
    Type.Object({
      status: Type.String(),
      latencyMs: Type.Optional(Type.Number()),
      error: Type.Optional(Type.String()),
    }),
  ),
  openStreams: Type.Integer(),
  /** The configured engines, so a UI can offer them when starting a thread. */
  engines: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        provider: Type.String(),
        label: Type.String(),
        capabilities: Type.Optional(
          Type.Record(Type.String(), Type.Boolean(), {
            description: "The engine's static capability flags, for an engine that has a static manifest.",
          }),
        ),
      }),
    ),
  ),
});

/** One canonical event draft an external runtime sends (checked against the contract by the route). */
const ExternalEventDraft = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'Stable within the run; eventId = ev_ + sha256(runId, NUL, key)',
    }),
    kind: Type.String({ minLength: 1, maxLength: 64, description: 'A canonical kind' }),
    payload: Json,
    namespace: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 32 })),
    identity: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);

export const ExternalEventsBody = Type.Object(
  {
    events: Type.Optional(Type.Array(ExternalEventDraft, { maxItems: 1000 })),
    audit: Type.Optional(
      Type.Array(JsonObject, { maxItems: 1000, description: 'AuditableCall rows of this run' }),
    ),
    end: Type.Optional(
      Type.Object(
        {
          outcome: Type.Union([Type.Literal('completed'), Type.Literal('failed'), Type.Literal('cancelled')]),
          error: Type.Optional(Type.String({ maxLength: 10_000 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ExternalEventsReply = Type.Object({
  accepted: Type.Boolean(),
  /** Frames appended to the run's source lane (events, then audit rows). */
  frames: Type.Integer({ minimum: 0 }),
  /** The turn was ended by this request. */
  ended: Type.Boolean(),
});
