import { Type } from 'typebox';
import { AUDIT_RECORD_VERSION } from '../audit.js';
import { MAX_PREVIEW_CHARS } from '../envelope.js';
import { closedObject, count, id, JsonValueSchema, timestamp, ULID_PATTERN } from './common.js';

const preview = (description: string) =>
  Type.Optional(Type.String({ maxLength: MAX_PREVIEW_CHARS, description }));

export const ModelCallPayloadSchema = closedObject(
  {
    kind: Type.Literal('model_call', { description: 'Payload discriminator.' }),
    request: closedObject(
      {
        messageCount: count('Number of messages sent.'),
        toolNames: Type.Array(Type.String(), { description: 'Tools offered to the model.' }),
        promptPreview: preview('The last user text, bounded.'),
      },
      { description: 'What was asked.' },
    ),
    response: closedObject(
      {
        textPreview: preview('The answer text, bounded.'),
        toolCalls: Type.Array(
          closedObject(
            { toolCallId: id('The tool call.'), toolName: Type.String({ description: 'Tool name.' }) },
            { description: 'A tool call the model asked for.' },
          ),
          { description: 'Tool calls the model asked for.' },
        ),
      },
      { description: 'What came back.' },
    ),
    usage: Type.Optional(
      closedObject(
        {
          inputTokens: Type.Optional(count('Input tokens.')),
          outputTokens: Type.Optional(count('Output tokens.')),
          reasoningTokens: Type.Optional(count('Reasoning tokens.')),
          cachedInputTokens: Type.Optional(count('Cached input tokens.')),
          costAmount: Type.Optional(Type.Number({ minimum: 0, description: 'Cost amount.' })),
          costCurrency: Type.Optional(Type.String({ description: 'Cost currency.' })),
        },
        { description: 'Token counts and cost of the call.' },
      ),
    ),
    error: Type.Optional(Type.String({ description: 'Error text when the call failed.' })),
  },
  { title: 'ModelCallPayload', description: 'Audit payload of a model call.' },
);

export const ToolCallPayloadSchema = closedObject(
  {
    kind: Type.Literal('tool_call', { description: 'Payload discriminator.' }),
    toolCallId: id('The tool call.'),
    toolName: Type.String({ minLength: 1, description: 'Tool name.' }),
    input: JsonValueSchema,
    outputPreview: preview('The output, bounded.'),
    error: Type.Optional(Type.String({ description: 'Error text when the call failed.' })),
    approval: Type.Optional(
      closedObject(
        {
          decision: Type.String({ description: 'The approval decision.' }),
          answeredBy: Type.Optional(Type.String({ description: 'Who answered.' })),
        },
        { description: 'The approval the call needed, when it needed one.' },
      ),
    ),
  },
  { title: 'ToolCallPayload', description: 'Audit payload of a tool call.' },
);

export const AuditPayloadSchema = Type.Union([ModelCallPayloadSchema, ToolCallPayloadSchema], {
  title: 'AuditPayload',
  description: 'The typed payload of an audit row, keyed on `kind`.',
});

export const AuditableCallSchema = closedObject(
  {
    record_id: Type.String({ pattern: ULID_PATTERN, description: 'ULID, Crockford Base-32, 26 characters.' }),
    audit_record_version: Type.Integer({
      minimum: 1,
      maximum: AUDIT_RECORD_VERSION,
      description: `Row shape version; readers accept 1..${AUDIT_RECORD_VERSION} (see AUDIT_RECORD_VERSION_HISTORY).`,
    }),
    session_id: id('Idempotency key part: the session.'),
    turn_id: Type.String({ description: 'Idempotency key part: the turn.' }),
    stage_id: Type.String({ description: 'Idempotency key part: the stage.' }),
    seq_within_turn: count('Idempotency key part: position of the call within the turn.'),
    created_at: timestamp('When the call was recorded.'),
    actor_kind: Type.Enum(['runtime', 'engine', 'plugin', 'user'], { description: 'Who made the call.' }),
    session_auth_method: Type.Enum(['api_key', 'oauth', 'engine_managed', 'none'], {
      description: 'How the session authenticated to the provider; never the credential itself.',
    }),
    call_class: Type.Enum(['model', 'tool'], { description: 'A model call or a tool call.' }),
    provider: Type.String({ minLength: 1, description: 'The provider the call went to.' }),
    model: Type.Union([Type.String(), Type.Null()], {
      description: 'The model, when the call was a model call.',
    }),
    transport: Type.String({ description: 'The wire the call went over.' }),
    status: Type.Enum(['ok', 'error', 'cancelled'], { description: 'How the call ended.' }),
    latency_ms: count('Latency in milliseconds.'),
    finish_reason: Type.Union([Type.String(), Type.Null()], {
      description: 'Why generation stopped, when known.',
    }),
    http_status: Type.Union([Type.Integer({ minimum: 100, maximum: 599 }), Type.Null()], {
      description: 'HTTP status, when there was one.',
    }),
    payload: AuditPayloadSchema,
  },
  {
    title: 'AuditableCall',
    description: 'One append-only row of harness_auditable_calls: one model or tool call.',
  },
);
