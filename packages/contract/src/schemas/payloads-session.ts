import { Type } from 'typebox';
import { NegotiatedCapabilitiesSchema } from './capabilities.js';
import { closedObject, count, id } from './common.js';
import { ProviderMetadataSchema } from './envelope.js';

// Payloads of the session, turn, message, reasoning and plan kinds.

export const SessionOriginSchema = Type.Enum(['new', 'load', 'resume', 'fork'], {
  description:
    'How the session came to be: created, loaded with history replay, resumed without replay, forked.',
});

export const SessionStartedPayloadSchema = closedObject(
  {
    provider: id('The engine: an open provider string.'),
    nativeSessionId: Type.Optional(Type.String({ description: "The engine's own session id." })),
    origin: SessionOriginSchema,
    generation: count('Counts runtime rebindings; a command carrying an older generation is refused.'),
    agent: Type.Optional(
      closedObject(
        {
          name: Type.String({ description: 'Agent name as it reports itself.' }),
          version: Type.Optional(Type.String({ description: 'Agent version.' })),
        },
        { description: 'The agent program, when it says who it is.' },
      ),
    ),
    cwd: Type.Optional(Type.String({ description: 'Working directory of the session.' })),
    title: Type.Optional(Type.String({ description: 'Session title.' })),
    capabilities: NegotiatedCapabilitiesSchema,
  },
  { title: 'SessionStartedPayload', description: 'Payload of `session.started`.' },
);

export const ModelInfoSchema = closedObject(
  {
    id: id('Model id as the engine names it.'),
    name: Type.Optional(Type.String({ description: 'Display name.' })),
    description: Type.Optional(Type.String({ description: 'What the model is for.' })),
  },
  { title: 'ModelInfo', description: 'A model the engine uses or offers.' },
);

export const SessionMetadataPayloadSchema = closedObject(
  {
    title: Type.Optional(Type.String({ description: 'Session title.' })),
    model: Type.Optional(ModelInfoSchema),
    availableModels: Type.Optional(
      Type.Array(ModelInfoSchema, { description: 'Models the user may pick (capability `modelSelection`).' }),
    ),
    reasoningLevel: Type.Optional(Type.String({ description: 'Reasoning effort, as the engine names it.' })),
    metadata: Type.Optional(ProviderMetadataSchema),
  },
  { title: 'SessionMetadataPayload', description: 'Payload of `session.metadata`.' },
);

export const TurnStartedPayloadSchema = closedObject(
  {
    prompt: Type.Optional(Type.String({ description: "The user's prompt text." })),
    parentRunId: Type.Optional(Type.String({ description: 'The run this run replies to.' })),
    model: Type.Optional(Type.String({ description: 'Model requested for the turn.' })),
    mode: Type.Optional(Type.String({ description: 'Mode requested for the turn.' })),
  },
  { title: 'TurnStartedPayload', description: 'Payload of `turn.started`.' },
);

export const StopReasonSchema = Type.Enum(
  ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled', 'error', 'other'],
  { description: 'Why a turn ended; `other` with rawStopReason for anything unknown.' },
);

export const TurnCompletedPayloadSchema = closedObject(
  {
    stopReason: StopReasonSchema,
    rawStopReason: Type.Optional(Type.String({ description: "The engine's own stop reason." })),
    durationMs: Type.Optional(count('Wall time of the turn in milliseconds.')),
  },
  { title: 'TurnCompletedPayload', description: 'Payload of `turn.completed`.' },
);

export const MessageRoleSchema = Type.Enum(['user', 'assistant', 'system'], {
  description: 'Message author.',
});

export const MessageStartedPayloadSchema = closedObject(
  { messageId: id('The message.'), role: MessageRoleSchema },
  { title: 'MessageStartedPayload', description: 'Payload of `message.started`.' },
);

export const MessageDeltaPayloadSchema = closedObject(
  {
    messageId: id('The message the delta belongs to.'),
    partId: id('The text part the delta appends to.'),
    delta: Type.String({ description: 'Incremental text: append, never cumulative.' }),
  },
  { title: 'MessageDeltaPayload', description: 'Payload of `message.delta`.' },
);

export const MessageCompletedPayloadSchema = closedObject(
  {
    messageId: id('The message.'),
    role: MessageRoleSchema,
    text: Type.String({ description: 'The whole text, the truth when deltas and final text disagree.' }),
  },
  { title: 'MessageCompletedPayload', description: 'Payload of `message.completed`.' },
);

export const ReasoningDeltaPayloadSchema = closedObject(
  {
    reasoningId: id('The reasoning block.'),
    partId: Type.Optional(Type.String({ description: 'The part the delta appends to.' })),
    messageId: Type.Optional(Type.String({ description: 'The message the reasoning belongs to.' })),
    delta: Type.String({ description: 'Incremental reasoning text.' }),
  },
  { title: 'ReasoningDeltaPayload', description: 'Payload of `reasoning.delta`.' },
);

export const ReasoningCompletedPayloadSchema = closedObject(
  {
    reasoningId: id('The reasoning block.'),
    messageId: Type.Optional(Type.String({ description: 'The message the reasoning belongs to.' })),
    text: Type.String({ description: 'The whole reasoning text.' }),
    durationMs: Type.Optional(count('Thinking time in milliseconds.')),
  },
  { title: 'ReasoningCompletedPayload', description: 'Payload of `reasoning.completed`.' },
);

export const PlanEntrySchema = closedObject(
  {
    id: Type.Optional(Type.String({ description: 'Entry id, when the engine gives one.' })),
    content: Type.String({ description: 'What the step is.' }),
    status: Type.Enum(['pending', 'in_progress', 'completed', 'cancelled'], { description: 'Step status.' }),
    priority: Type.Optional(Type.Enum(['high', 'medium', 'low'], { description: 'Step priority.' })),
  },
  { title: 'PlanEntry', description: 'One step of a plan.' },
);

export const PlanUpdatedPayloadSchema = closedObject(
  {
    planId: Type.Optional(Type.String({ description: 'Plan id, when the engine keeps several.' })),
    entries: Type.Array(PlanEntrySchema, { description: 'The whole plan; replaces the previous one.' }),
  },
  { title: 'PlanUpdatedPayload', description: 'Payload of `plan.updated`.' },
);
