import { Type } from 'typebox';
import { MAX_PREVIEW_CHARS } from '../envelope.js';
import { closedObject, count, id, JsonValueSchema } from './common.js';
import { ArtifactRefSchema, ArtifactWithPreviewSchema } from './envelope.js';
import { StopReasonSchema } from './payloads-session.js';

// Payloads of the tool, file, artifact, terminal and child-session kinds.

const ToolKindSchema = Type.Enum(
  ['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other'],
  { description: 'What the tool does, so a UI can pick an icon and group quiet tools.' },
);
const ToolRunningStatusSchema = Type.Enum(['pending', 'running'], { description: 'A tool still in flight.' });

export const ToolStartedPayloadSchema = closedObject(
  {
    toolCallId: id('The tool call.'),
    name: Type.String({ minLength: 1, description: 'Tool name.' }),
    title: Type.Optional(Type.String({ description: 'Human title of the call.' })),
    kind: ToolKindSchema,
    input: JsonValueSchema,
    status: ToolRunningStatusSchema,
    parentToolCallId: Type.Optional(
      Type.String({ description: 'The parent agent tool call, for nested tools.' }),
    ),
  },
  { title: 'ToolStartedPayload', description: 'Payload of `tool.started`.' },
);

export const ToolProgressPayloadSchema = closedObject(
  {
    toolCallId: id('The tool call.'),
    status: ToolRunningStatusSchema,
    title: Type.Optional(Type.String({ description: 'Updated title.' })),
    input: Type.Optional(JsonValueSchema),
    inputDelta: Type.Optional(
      Type.String({
        description:
          "Streamed input, append form: text appended to the call's input text so far (earlier inputDeltas of the call, from ''). Sent without `input`; a later `input` replaces the text.",
      }),
    ),
    message: Type.Optional(Type.String({ description: 'A progress message.' })),
    partialOutput: Type.Optional(Type.String({ description: 'Output so far, when it is small.' })),
  },
  { title: 'ToolProgressPayload', description: 'Payload of `tool.progress`.' },
);

export const ToolCompletedPayloadSchema = closedObject(
  {
    toolCallId: id('The tool call.'),
    status: Type.Enum(['completed', 'failed', 'cancelled'], { description: 'How the call ended.' }),
    output: Type.Optional(JsonValueSchema),
    outputArtifact: Type.Optional(ArtifactWithPreviewSchema),
    error: Type.Optional(Type.String({ description: 'Error text when the call failed.' })),
    durationMs: Type.Optional(count('Run time of the call in milliseconds.')),
  },
  {
    title: 'ToolCompletedPayload',
    description: 'Payload of `tool.completed`: small output inline, large out of band.',
  },
);

export const FileChangedPayloadSchema = closedObject(
  {
    path: Type.String({ minLength: 1, description: 'Path of the changed file.' }),
    change: Type.Enum(['created', 'modified', 'deleted', 'renamed'], { description: 'Kind of change.' }),
    previousPath: Type.Optional(Type.String({ description: 'The old path of a rename.' })),
    toolCallId: Type.Optional(Type.String({ description: 'The tool call that made the change.' })),
    diff: Type.Optional(ArtifactWithPreviewSchema),
    additions: Type.Optional(count('Added lines.')),
    deletions: Type.Optional(count('Deleted lines.')),
  },
  { title: 'FileChangedPayload', description: 'Payload of `file.changed`.' },
);

export const ArtifactCreatedPayloadSchema = closedObject(
  {
    artifact: ArtifactRefSchema,
    name: Type.Optional(Type.String({ description: 'Display name.' })),
    preview: Type.Optional(Type.String({ maxLength: MAX_PREVIEW_CHARS, description: 'A bounded preview.' })),
    toolCallId: Type.Optional(Type.String({ description: 'The tool call that produced it.' })),
    messageId: Type.Optional(Type.String({ description: 'The message that produced it.' })),
  },
  { title: 'ArtifactCreatedPayload', description: 'Payload of `artifact.created`.' },
);

export const ArtifactDeliveredPayloadSchema = closedObject(
  {
    artifact: ArtifactRefSchema,
    name: Type.Optional(Type.String({ description: 'Display name.' })),
    description: Type.Optional(Type.String({ description: 'What the artifact is.' })),
  },
  {
    title: 'ArtifactDeliveredPayload',
    description: 'Payload of `artifact.delivered`: an artifact handed to the user as a result of the run.',
  },
);

export const TerminalOutputPayloadSchema = closedObject(
  {
    terminalId: id('The terminal.'),
    toolCallId: Type.Optional(Type.String({ description: 'The tool call that owns the terminal.' })),
    stream: Type.Enum(['stdout', 'stderr', 'pty'], { description: 'Which stream the chunk came from.' }),
    chunk: Type.String({ description: 'Output text, may hold ANSI escapes; empty on a bare final chunk.' }),
    command: Type.Optional(Type.String({ description: 'The command line.' })),
    exit: Type.Optional(
      closedObject(
        {
          code: Type.Union([Type.Integer(), Type.Null()], { description: 'Exit code, null when killed.' }),
          signal: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Signal name.' })),
        },
        { description: 'Present on the chunk that ends the terminal.' },
      ),
    ),
  },
  { title: 'TerminalOutputPayload', description: 'Payload of `terminal.output`.' },
);

export const ChildStartedPayloadSchema = closedObject(
  {
    childSessionId: id('The child session.'),
    childRunId: Type.Optional(Type.String({ description: "The child's run." })),
    parentToolCallId: Type.Optional(Type.String({ description: 'The tool call that spawned it.' })),
    title: Type.Optional(Type.String({ description: 'Child title.' })),
    description: Type.Optional(Type.String({ description: 'What the child was asked to do.' })),
  },
  { title: 'ChildStartedPayload', description: 'Payload of `child.started`.' },
);

export const ChildUpdatedPayloadSchema = closedObject(
  {
    childSessionId: id('The child session.'),
    state: Type.Enum(['running', 'idle', 'requires_action', 'unknown'], { description: 'Child state.' }),
    title: Type.Optional(Type.String({ description: 'Child title.' })),
    summary: Type.Optional(Type.String({ description: 'What the child is doing.' })),
  },
  { title: 'ChildUpdatedPayload', description: 'Payload of `child.updated`.' },
);

export const ChildCompletedPayloadSchema = closedObject(
  {
    childSessionId: id('The child session.'),
    status: Type.Enum(['completed', 'failed', 'cancelled'], { description: 'How the child ended.' }),
    summary: Type.Optional(Type.String({ description: 'What the child did.' })),
    stopReason: Type.Optional(StopReasonSchema),
  },
  { title: 'ChildCompletedPayload', description: 'Payload of `child.completed`.' },
);
