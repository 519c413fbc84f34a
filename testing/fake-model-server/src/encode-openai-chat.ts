import { chunkSize, type EncodeContext, split, toolId, usageOf } from './chunks';
import type { ModelReply } from './types';

/**
 * Chat Completions streaming: `reasoning_content` and `content` deltas, `tool_calls` deltas, the finish
 * reason, a usage chunk when `stream_options.include_usage` asked for it, then `[DONE]`.
 */
export function chatStream(reply: ModelReply, ctx: EncodeContext, includeUsage: boolean): string[] {
  const frames: string[] = [];
  const id = `chatcmpl-fake-${ctx.index}`;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    frames.push(
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created: 1_700_000_000,
        model: ctx.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      })}\n\n`,
    );
  chunk({ role: 'assistant', content: '' });
  for (const d of split(reply.reasoning ?? '', chunkSize(reply))) chunk({ reasoning_content: d });
  for (const d of split(reply.text ?? '', chunkSize(reply))) chunk({ content: d });
  (reply.toolCalls ?? []).forEach((call, i) => {
    chunk({
      tool_calls: [
        {
          index: i,
          id: toolId(ctx, call, i),
          type: 'function',
          function: { name: call.name, arguments: '' },
        },
      ],
    });
    for (const d of split(JSON.stringify(call.arguments), call.argumentsChunkSize ?? 20)) {
      chunk({ tool_calls: [{ index: i, function: { arguments: d } }] });
    }
  });
  chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop');
  if (includeUsage) {
    const usage = usageOf(reply);
    frames.push(
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created: 1_700_000_000,
        model: ctx.model,
        choices: [],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
          completion_tokens_details: { reasoning_tokens: usage.reasoning },
        },
      })}\n\n`,
    );
  }
  frames.push('data: [DONE]\n\n');
  return frames;
}

export function chatJson(reply: ModelReply, ctx: EncodeContext): unknown {
  const usage = usageOf(reply);
  const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
    id: toolId(ctx, call, i),
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  return {
    id: `chatcmpl-fake-${ctx.index}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: ctx.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
    },
  };
}
