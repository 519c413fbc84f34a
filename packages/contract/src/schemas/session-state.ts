import { Type } from 'typebox';
import { ChannelsSchema } from './checkpoint.js';
import { closedObject, id, JsonValueSchema } from './common.js';
import { PlanEntrySchema } from './payloads-session.js';
import { VersionVectorSchema } from './version-vector.js';

export const ConversationPartSchema = Type.Union(
  [
    closedObject(
      {
        type: Type.Literal('text', { description: 'Part type.' }),
        text: Type.String({ description: 'The text.' }),
      },
      { description: 'Text.' },
    ),
    closedObject(
      {
        type: Type.Literal('reasoning', { description: 'Part type.' }),
        text: Type.String({ description: 'The reasoning text.' }),
      },
      { description: 'Reasoning text.' },
    ),
    closedObject(
      {
        type: Type.Literal('tool-call', { description: 'Part type.' }),
        toolCallId: id('The tool call.'),
        toolName: Type.String({ description: 'Tool name.' }),
        input: JsonValueSchema,
      },
      { description: 'A tool call the assistant made.' },
    ),
    closedObject(
      {
        type: Type.Literal('tool-result', { description: 'Part type.' }),
        toolCallId: id('The tool call.'),
        toolName: Type.String({ description: 'Tool name.' }),
        output: JsonValueSchema,
        isError: Type.Boolean({ description: 'True when the tool failed.' }),
      },
      { description: 'The result of a tool call.' },
    ),
  ],
  { title: 'ConversationPart', description: 'One part of a conversation message, keyed on `type`.' },
);

export const ConversationMessageSchema = closedObject(
  {
    id: id('Message id.'),
    role: Type.Enum(['system', 'user', 'assistant', 'tool'], { description: 'Message author.' }),
    parts: Type.Array(ConversationPartSchema, { description: 'The parts, in order.' }),
  },
  { title: 'ConversationMessage', description: 'One message of the conversation history.' },
);

export const SessionStateSchema = closedObject(
  {
    conversation: Type.Array(ConversationMessageSchema, { description: 'The conversation history.' }),
    plan: Type.Array(PlanEntrySchema, { description: 'The current plan.' }),
    versionVector: VersionVectorSchema,
    channels: ChannelsSchema,
  },
  {
    title: 'SessionState',
    description:
      'The state a checkpoint hydrates to; runtimes agree when its canonical JSON fingerprints match.',
  },
);
