import { chunkSize, type EncodeContext, split, sse, toolId, usageOf } from './chunks';
import type { FakeProviderError, ModelReply } from './types';

/**
 * OpenAI Responses streaming: reasoning, message and function_call items, each opened with
 * response.output_item.added and closed with response.output_item.done (Codex needs the done events),
 * then response.completed with usage.
 */
export function responsesStream(reply: ModelReply, ctx: EncodeContext): string[] {
  const frames: string[] = [];
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>) => {
    frames.push(sse({ type, sequence_number: seq, ...data }, type));
    seq += 1;
  };
  const id = `resp_fake_${ctx.index}`;
  const base = { id, object: 'response', created_at: 1_700_000_000, model: ctx.model };
  ev('response.created', { response: { ...base, status: 'in_progress', output: [] } });
  ev('response.in_progress', { response: { ...base, status: 'in_progress', output: [] } });
  const output = responsesOutput(reply, ctx);
  output.forEach((item, outputIndex) => {
    const itemId = item.id as string;
    if (item.type === 'reasoning') {
      ev('response.output_item.added', { output_index: outputIndex, item: { ...item, summary: [] } });
      const text = reply.reasoning ?? '';
      const part = { output_index: outputIndex, item_id: itemId, summary_index: 0 };
      ev('response.reasoning_summary_part.added', { ...part, part: { type: 'summary_text', text: '' } });
      for (const d of split(text, chunkSize(reply)))
        ev('response.reasoning_summary_text.delta', { ...part, delta: d });
      ev('response.reasoning_summary_text.done', { ...part, text });
      ev('response.reasoning_summary_part.done', { ...part, part: { type: 'summary_text', text } });
    } else if (item.type === 'message') {
      ev('response.output_item.added', {
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', content: [] },
      });
      const text = reply.text ?? '';
      const part = { output_index: outputIndex, item_id: itemId, content_index: 0 };
      ev('response.content_part.added', {
        ...part,
        part: { type: 'output_text', text: '', annotations: [] },
      });
      for (const d of split(text, chunkSize(reply))) ev('response.output_text.delta', { ...part, delta: d });
      ev('response.output_text.done', { ...part, text });
      ev('response.content_part.done', { ...part, part: { type: 'output_text', text, annotations: [] } });
    } else if (item.type === 'custom_tool_call') {
      const input = item.input as string;
      ev('response.output_item.added', {
        output_index: outputIndex,
        item: { ...item, input: '', status: 'in_progress' },
      });
      for (const d of split(input, 40)) {
        ev('response.custom_tool_call_input.delta', { output_index: outputIndex, item_id: itemId, delta: d });
      }
      ev('response.custom_tool_call_input.done', { output_index: outputIndex, item_id: itemId, input });
    } else {
      const args = item.arguments as string;
      ev('response.output_item.added', {
        output_index: outputIndex,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      for (const d of split(args, 20)) {
        ev('response.function_call_arguments.delta', {
          output_index: outputIndex,
          item_id: itemId,
          delta: d,
        });
      }
      ev('response.function_call_arguments.done', {
        output_index: outputIndex,
        item_id: itemId,
        arguments: args,
      });
    }
    ev('response.output_item.done', { output_index: outputIndex, item });
  });
  const { usage, ...withoutUsage } = responsesJson(reply, ctx);
  ev('response.completed', {
    response: reply.misbehave?.omitUsage ? withoutUsage : { ...withoutUsage, usage },
  });
  return frames;
}

function responsesOutput(reply: ModelReply, ctx: EncodeContext): Record<string, unknown>[] {
  const output: Record<string, unknown>[] = [];
  if (reply.reasoning) {
    output.push({
      id: `rs_fake_${ctx.index}`,
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: reply.reasoning }],
    });
  }
  if (reply.text) {
    output.push({
      id: `msg_fake_${ctx.index}`,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    });
  }
  (reply.toolCalls ?? []).forEach((call, i) => {
    if (call.input !== undefined) {
      output.push({
        id: `ctc_fake_${ctx.index}_${i}`,
        type: 'custom_tool_call',
        status: 'completed',
        call_id: toolId(ctx, call, i),
        name: call.name,
        input: call.input,
      });
      return;
    }
    output.push({
      id: `fc_fake_${ctx.index}_${i}`,
      type: 'function_call',
      status: 'completed',
      call_id: toolId(ctx, call, i),
      name: call.name,
      arguments: JSON.stringify(call.arguments),
    });
  });
  return output;
}

export function responsesJson(reply: ModelReply, ctx: EncodeContext): Record<string, unknown> {
  const usage = usageOf(reply);
  return {
    id: `resp_fake_${ctx.index}`,
    object: 'response',
    created_at: 1_700_000_000,
    model: ctx.model,
    status: 'completed',
    output: responsesOutput(reply, ctx),
    usage: {
      input_tokens: usage.input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: usage.reasoning },
      total_tokens: usage.input + usage.output,
    },
  };
}

export function openaiError(error: FakeProviderError): unknown {
  return {
    error: { message: error.message, type: error.type ?? 'invalid_request_error', code: null, param: null },
  };
}
