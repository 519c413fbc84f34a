import { Type } from 'typebox';
import { CONTEXT_MARKER_KINDS } from '../events.js';
import { closedObject, count, id, JsonValueSchema, timestamp } from './common.js';
import { ArtifactWithPreviewSchema } from './envelope.js';

// Payloads of the approval, question, command, mode, usage, context-marker and diagnostic kinds.

const ApprovalOptionKindSchema = Type.Enum(['allow_once', 'allow_always', 'reject_once', 'reject_always'], {
  description: 'What choosing the option means.',
});

export const ApprovalOptionSchema = closedObject(
  {
    optionId: id('Option id, sent back when it is chosen.'),
    label: Type.String({ description: 'Button label.' }),
    kind: ApprovalOptionKindSchema,
  },
  { title: 'ApprovalOption', description: 'One answer an approval offers.' },
);

export const ApprovalSubjectSchema = closedObject(
  {
    kind: Type.Enum(['tool_call', 'command', 'file_edit', 'other'], {
      description: 'What is being approved.',
    }),
    command: Type.Optional(Type.String({ description: 'The command line to run.' })),
    path: Type.Optional(Type.String({ description: 'The file to change.' })),
    diff: Type.Optional(ArtifactWithPreviewSchema),
  },
  {
    title: 'ApprovalSubject',
    description: 'What is being approved, so the card can show exactly what is asked.',
  },
);

export const ApprovalRequestedPayloadSchema = closedObject(
  {
    approvalId: id('The approval.'),
    toolCallId: Type.Optional(Type.String({ description: 'The tool call waiting for it.' })),
    title: Type.String({ description: 'What is asked.' }),
    description: Type.Optional(Type.String({ description: 'More detail.' })),
    subject: ApprovalSubjectSchema,
    input: Type.Optional(JsonValueSchema),
    options: Type.Array(ApprovalOptionSchema, { description: 'The answers offered.' }),
  },
  { title: 'ApprovalRequestedPayload', description: 'Payload of `approval.requested`.' },
);

export const ApprovalResolvedPayloadSchema = closedObject(
  {
    approvalId: id('The approval.'),
    outcome: Type.Enum(['selected', 'cancelled'], {
      description: 'An option was chosen, or it was cancelled.',
    }),
    optionId: Type.Optional(Type.String({ description: 'The chosen option.' })),
    decision: Type.Optional(ApprovalOptionKindSchema),
    answeredBy: Type.Optional(Type.String({ description: 'A user or token subject, or "system".' })),
    answeredAt: Type.Optional(timestamp('When it was answered.')),
  },
  { title: 'ApprovalResolvedPayload', description: 'Payload of `approval.resolved`.' },
);

export const QuestionChoiceSchema = closedObject(
  {
    id: id('Choice id.'),
    label: Type.String({ description: 'Choice label.' }),
    description: Type.Optional(Type.String({ description: 'More detail.' })),
  },
  { title: 'QuestionChoice', description: 'One choice a question offers.' },
);

export const QuestionRequestedPayloadSchema = closedObject(
  {
    questionId: id('The question.'),
    toolCallId: Type.Optional(Type.String({ description: 'The tool call waiting for it.' })),
    prompt: Type.String({ description: 'The question text.' }),
    choices: Type.Array(QuestionChoiceSchema, {
      description: 'Choices offered; may be empty for free text.',
    }),
    multiple: Type.Boolean({ description: 'True when several choices may be picked.' }),
    allowFreeText: Type.Boolean({ description: 'True when a free-text answer is accepted.' }),
  },
  { title: 'QuestionRequestedPayload', description: 'Payload of `question.requested`.' },
);

export const QuestionResolvedPayloadSchema = closedObject(
  {
    questionId: id('The question.'),
    outcome: Type.Enum(['answered', 'declined', 'cancelled'], { description: 'How it was resolved.' }),
    answer: Type.Optional(
      closedObject(
        {
          choiceIds: Type.Array(Type.String(), { description: 'Chosen choice ids.' }),
          text: Type.Optional(Type.String({ description: 'Free-text answer.' })),
        },
        { description: 'The answer, when answered.' },
      ),
    ),
    answeredBy: Type.Optional(Type.String({ description: 'A user or token subject, or "system".' })),
    answeredAt: Type.Optional(timestamp('When it was answered.')),
  },
  { title: 'QuestionResolvedPayload', description: 'Payload of `question.resolved`.' },
);

export const SlashCommandSchema = closedObject(
  {
    name: Type.String({ minLength: 1, description: 'Command name, without the slash.' }),
    description: Type.String({ description: 'What it does.' }),
    inputHint: Type.Optional(Type.String({ description: 'Hint for the argument.' })),
  },
  { title: 'SlashCommand', description: 'One command of the catalog.' },
);

export const CommandsUpdatedPayloadSchema = closedObject(
  {
    commands: Type.Array(SlashCommandSchema, {
      description: 'The whole catalog; replaces the previous one.',
    }),
  },
  { title: 'CommandsUpdatedPayload', description: 'Payload of `commands.updated`.' },
);

export const ModeInfoSchema = closedObject(
  {
    id: id('Mode id.'),
    name: Type.String({ description: 'Display name.' }),
    description: Type.Optional(Type.String({ description: 'What the mode does.' })),
  },
  { title: 'ModeInfo', description: 'One mode the engine offers.' },
);

export const ModeUpdatedPayloadSchema = closedObject(
  {
    currentModeId: id('The mode now in effect.'),
    availableModes: Type.Optional(Type.Array(ModeInfoSchema, { description: 'Modes the user may pick.' })),
  },
  { title: 'ModeUpdatedPayload', description: 'Payload of `mode.updated`.' },
);

export const UsageCostSchema = closedObject(
  {
    amount: Type.Number({ minimum: 0, description: 'Cost amount.' }),
    currency: Type.String({ minLength: 1, description: 'Currency code, e.g. USD.' }),
  },
  { title: 'UsageCost', description: 'Money spent.' },
);

export const UsageUpdatedPayloadSchema = closedObject(
  {
    scope: Type.Enum(['step', 'turn', 'session'], {
      description: 'What the numbers cover: one model step, one turn, or the session so far.',
    }),
    inputTokens: Type.Optional(count('Input tokens.')),
    outputTokens: Type.Optional(count('Output tokens.')),
    reasoningTokens: Type.Optional(count('Reasoning tokens.')),
    cachedInputTokens: Type.Optional(count('Input tokens read from cache.')),
    cacheWriteTokens: Type.Optional(count('Tokens written to cache.')),
    totalTokens: Type.Optional(count('Total tokens.')),
    contextUsedTokens: Type.Optional(count('Tokens of the context window in use.')),
    contextWindowTokens: Type.Optional(count('Size of the context window.')),
    cost: Type.Optional(UsageCostSchema),
    model: Type.Optional(Type.String({ description: 'Model the numbers are for.' })),
  },
  { title: 'UsageUpdatedPayload', description: 'Payload of `usage.updated`: token counts and cost.' },
);

export const ContextMarkerPayloadSchema = closedObject(
  {
    markerKind: Type.Enum([...CONTEXT_MARKER_KINDS], { description: 'What kind of context.' }),
    phase: Type.Enum(['start', 'end', 'point'], {
      description: 'start/end bracket a span; point is one mark.',
    }),
    label: Type.String({ description: 'What is shown.' }),
    detail: Type.Optional(Type.String({ description: 'More detail.' })),
    source: Type.Optional(Type.String({ description: 'Where the context came from.' })),
  },
  { title: 'ContextMarkerPayload', description: 'Payload of `context.marker`.' },
);

export const HarnessWarningPayloadSchema = closedObject(
  {
    code: id('Machine-readable warning code.'),
    message: Type.String({ description: 'Human-readable message.' }),
    detail: Type.Optional(JsonValueSchema),
  },
  {
    title: 'HarnessWarningPayload',
    description: 'Payload of `harness.warning`: something was off, the run goes on.',
  },
);

export const HarnessErrorPayloadSchema = closedObject(
  {
    code: id('Machine-readable error code.'),
    message: Type.String({ description: 'Human-readable message.' }),
    fatal: Type.Boolean({ description: 'True when the error ended the run.' }),
    detail: Type.Optional(JsonValueSchema),
  },
  { title: 'HarnessErrorPayload', description: 'Payload of `harness.error`.' },
);
