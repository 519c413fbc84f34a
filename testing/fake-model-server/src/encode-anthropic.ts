import { chunkSize, type EncodeContext, split, sse, toolId, usageOf } from './chunks';
import type { FakeProviderError, ModelReply } from './types';

/** Anthropic Messages streaming: thinking (with a signature delta), text, and tool_use blocks. */
export function anthropicStream(reply: ModelReply, ctx: EncodeContext): string[] {
  const usage = usageOf(reply);
  const omit = reply.misbehave?.omitUsage === true;
  const frames: string[] = [];
  const ev = (type: string, data: Record<string, unknown>) => frames.push(sse({ type, ...data }, type));
  ev('message_start', {
    message: {
      id: `msg_fake_${ctx.index}`,
      type: 'message',
      role: 'assistant',
      model: ctx.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      ...(omit ? {} : { usage: { input_tokens: usage.input, output_tokens: 1 } }),
    },
  });
  let index = 0;
  if (reply.reasoning) {
    ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const d of split(reply.reasoning, chunkSize(reply))) {
      ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: d } });
    }
    ev('content_block_delta', {
      index,
      delta: { type: 'signature_delta', signature: `fake-signature-${ctx.index}` },
    });
    ev('content_block_stop', { index });
    index += 1;
  }
  if (reply.text) {
    ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const d of split(reply.text, chunkSize(reply))) {
      ev('content_block_delta', { index, delta: { type: 'text_delta', text: d } });
    }
    ev('content_block_stop', { index });
    index += 1;
  }
  (reply.toolCalls ?? []).forEach((call, i) => {
    ev('content_block_start', {
      index,
      content_block: {
        type: 'tool_use',
        id: toolId(ctx, call, i).replace(/^call_/, 'toolu_'),
        name: call.name,
        input: {},
      },
    });
    for (const d of split(JSON.stringify(call.arguments), call.argumentsChunkSize ?? 20)) {
      ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: d } });
    }
    ev('content_block_stop', { index });
    index += 1;
  });
  ev('message_delta', {
    delta: { stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
    ...(omit ? {} : { usage: { output_tokens: usage.output } }),
  });
  ev('message_stop', {});
  return frames;
}

/** The same reply as one non-streamed message. */
export function anthropicJson(reply: ModelReply, ctx: EncodeContext): unknown {
  const usage = usageOf(reply);
  const content: unknown[] = [];
  if (reply.reasoning)
    content.push({ type: 'thinking', thinking: reply.reasoning, signature: `fake-signature-${ctx.index}` });
  if (reply.text) content.push({ type: 'text', text: reply.text });
  (reply.toolCalls ?? []).forEach((call, i) => {
    content.push({
      type: 'tool_use',
      id: toolId(ctx, call, i).replace(/^call_/, 'toolu_'),
      name: call.name,
      input: call.arguments,
    });
  });
  return {
    id: `msg_fake_${ctx.index}`,
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content,
    stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  };
}

export function anthropicError(error: FakeProviderError): unknown {
  return { type: 'error', error: { type: error.type ?? 'invalid_request_error', message: error.message } };
}
