import { type TLiteral, type TObject, type TSchema, Type } from 'typebox';
import { CANONICAL_EVENT_KINDS, type CanonicalEventKind } from '../events.js';
import { closedObject } from './common.js';
import { envelopeProperties } from './envelope.js';
import {
  ApprovalRequestedPayloadSchema,
  ApprovalResolvedPayloadSchema,
  CommandsUpdatedPayloadSchema,
  ContextMarkerPayloadSchema,
  HarnessErrorPayloadSchema,
  HarnessWarningPayloadSchema,
  ModeUpdatedPayloadSchema,
  QuestionRequestedPayloadSchema,
  QuestionResolvedPayloadSchema,
  UsageUpdatedPayloadSchema,
} from './payloads-interaction.js';
import {
  MessageCompletedPayloadSchema,
  MessageDeltaPayloadSchema,
  MessageStartedPayloadSchema,
  PlanUpdatedPayloadSchema,
  ReasoningCompletedPayloadSchema,
  ReasoningDeltaPayloadSchema,
  SessionMetadataPayloadSchema,
  SessionStartedPayloadSchema,
  TurnCompletedPayloadSchema,
  TurnStartedPayloadSchema,
} from './payloads-session.js';
import {
  ArtifactCreatedPayloadSchema,
  ArtifactDeliveredPayloadSchema,
  ChildCompletedPayloadSchema,
  ChildStartedPayloadSchema,
  ChildUpdatedPayloadSchema,
  FileChangedPayloadSchema,
  TerminalOutputPayloadSchema,
  ToolCompletedPayloadSchema,
  ToolProgressPayloadSchema,
  ToolStartedPayloadSchema,
} from './payloads-tools.js';

/** The payload schema of every kind; the key set is checked against the kind list at compile time. */
export const PAYLOAD_SCHEMAS = {
  'session.started': SessionStartedPayloadSchema,
  'session.metadata': SessionMetadataPayloadSchema,
  'turn.started': TurnStartedPayloadSchema,
  'turn.completed': TurnCompletedPayloadSchema,
  'message.started': MessageStartedPayloadSchema,
  'message.delta': MessageDeltaPayloadSchema,
  'message.completed': MessageCompletedPayloadSchema,
  'reasoning.delta': ReasoningDeltaPayloadSchema,
  'reasoning.completed': ReasoningCompletedPayloadSchema,
  'plan.updated': PlanUpdatedPayloadSchema,
  'tool.started': ToolStartedPayloadSchema,
  'tool.progress': ToolProgressPayloadSchema,
  'tool.completed': ToolCompletedPayloadSchema,
  'file.changed': FileChangedPayloadSchema,
  'artifact.created': ArtifactCreatedPayloadSchema,
  'artifact.delivered': ArtifactDeliveredPayloadSchema,
  'terminal.output': TerminalOutputPayloadSchema,
  'child.started': ChildStartedPayloadSchema,
  'child.updated': ChildUpdatedPayloadSchema,
  'child.completed': ChildCompletedPayloadSchema,
  'approval.requested': ApprovalRequestedPayloadSchema,
  'approval.resolved': ApprovalResolvedPayloadSchema,
  'question.requested': QuestionRequestedPayloadSchema,
  'question.resolved': QuestionResolvedPayloadSchema,
  'commands.updated': CommandsUpdatedPayloadSchema,
  'mode.updated': ModeUpdatedPayloadSchema,
  'usage.updated': UsageUpdatedPayloadSchema,
  'context.marker': ContextMarkerPayloadSchema,
  'harness.warning': HarnessWarningPayloadSchema,
  'harness.error': HarnessErrorPayloadSchema,
} satisfies Record<CanonicalEventKind, TSchema>;

type PayloadSchemas = typeof PAYLOAD_SCHEMAS;

type EventSchemaOf<K extends CanonicalEventKind> = TObject<
  typeof envelopeProperties & { kind: TLiteral<K>; payload: PayloadSchemas[K] }
>;
type DraftSchemaOf<K extends CanonicalEventKind> = TObject<{ kind: TLiteral<K>; payload: PayloadSchemas[K] }>;

/** `message.delta` -> `MessageDelta`: the PascalCase stem of a kind's schema names. */
export function kindStem(kind: CanonicalEventKind): string {
  return kind
    .split('.')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

function eventSchema<K extends CanonicalEventKind>(kind: K): EventSchemaOf<K> {
  return closedObject(
    {
      ...envelopeProperties,
      kind: Type.Literal(kind, { description: 'The event kind.' }),
      payload: PAYLOAD_SCHEMAS[kind],
    },
    {
      title: `${kindStem(kind)}Event`,
      description: `A canonical \`${kind}\` event: the envelope plus its payload.`,
    },
  );
}

function draftSchema<K extends CanonicalEventKind>(kind: K): DraftSchemaOf<K> {
  return closedObject(
    { kind: Type.Literal(kind, { description: 'The event kind.' }), payload: PAYLOAD_SCHEMAS[kind] },
    { description: `A \`${kind}\` event as a translator drafts it, before the lane adds the envelope.` },
  );
}

/** One schema per kind (envelope + kind + payload). */
export const EVENT_SCHEMAS = Object.fromEntries(
  CANONICAL_EVENT_KINDS.map((kind) => [kind, eventSchema(kind)]),
) as {
  [K in CanonicalEventKind]: EventSchemaOf<K>;
};

/** One draft schema per kind ({ kind, payload }). */
export const DRAFT_SCHEMAS = Object.fromEntries(
  CANONICAL_EVENT_KINDS.map((kind) => [kind, draftSchema(kind)]),
) as {
  [K in CanonicalEventKind]: DraftSchemaOf<K>;
};

type Kinds = typeof CANONICAL_EVENT_KINDS;
/** The per-kind schemas as a tuple in kind order: TypeBox derives the union's static type from a tuple. */
type EventTupleOf<T extends readonly CanonicalEventKind[]> = {
  -readonly [I in keyof T]: EventSchemaOf<T[I]>;
};
type DraftTupleOf<T extends readonly CanonicalEventKind[]> = {
  -readonly [I in keyof T]: DraftSchemaOf<T[I]>;
};
type EventTuple = EventTupleOf<Kinds>;
type DraftTuple = DraftTupleOf<Kinds>;

export const CanonicalEventKindSchema = Type.Enum([...CANONICAL_EVENT_KINDS], {
  title: 'CanonicalEventKind',
  description: 'The 30 canonical event kinds.',
});

export const CanonicalEventSchema = Type.Union(
  CANONICAL_EVENT_KINDS.map((kind) => EVENT_SCHEMAS[kind]) as unknown as EventTuple,
  {
    title: 'CanonicalEvent',
    description: 'One canonical event: the discriminated union of the 30 kinds on `kind`.',
  },
);

export const CanonicalEventDraftSchema = Type.Union(
  CANONICAL_EVENT_KINDS.map((kind) => DRAFT_SCHEMAS[kind]) as unknown as DraftTuple,
  { title: 'CanonicalEventDraft', description: 'An event without its envelope, as a translator drafts it.' },
);
