import { chunkSize, type EncodeContext, split, usageOf } from './chunks';
import type { FakeProviderError, ModelReply } from './types';

/** Gemini streamGenerateContent (alt=sse): thought parts, text parts, functionCall parts, then usage. */
export function geminiStream(reply: ModelReply, ctx: EncodeContext): string[] {
  const frames: string[] = [];
  const usage = usageOf(reply);
  const chunk = (parts: unknown[], finish?: string) =>
    frames.push(
      `data: ${JSON.stringify({
        candidates: [
          { content: { role: 'model', parts }, index: 0, ...(finish ? { finishReason: finish } : {}) },
        ],
        ...(finish && !reply.misbehave?.omitUsage ? { usageMetadata: usageMetadata(usage) } : {}),
        modelVersion: ctx.model,
        responseId: `gemini-fake-${ctx.index}`,
      })}\n\n`,
    );
  for (const d of split(reply.reasoning ?? '', chunkSize(reply))) chunk([{ text: d, thought: true }]);
  for (const d of split(reply.text ?? '', chunkSize(reply))) chunk([{ text: d }]);
  const calls = (reply.toolCalls ?? []).map((call) => ({
    functionCall: { name: call.name, args: call.arguments },
  }));
  if (calls.length > 0) chunk(calls, 'STOP');
  else chunk([{ text: '' }], 'STOP');
  return frames;
}

function usageMetadata(usage: { input: number; output: number; reasoning: number }) {
  return {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output - usage.reasoning,
    thoughtsTokenCount: usage.reasoning,
    totalTokenCount: usage.input + usage.output,
  };
}

export function geminiJson(reply: ModelReply, ctx: EncodeContext): unknown {
  const usage = usageOf(reply);
  const parts: unknown[] = [];
  if (reply.reasoning) parts.push({ text: reply.reasoning, thought: true });
  if (reply.text) parts.push({ text: reply.text });
  for (const call of reply.toolCalls ?? [])
    parts.push({ functionCall: { name: call.name, args: call.arguments } });
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, finishReason: 'STOP' }],
    usageMetadata: usageMetadata(usage),
    modelVersion: ctx.model,
  };
}

export function geminiError(error: FakeProviderError): unknown {
  const status = error.status ?? 400;
  return { error: { code: status, message: error.message, status: error.type ?? 'INVALID_ARGUMENT' } };
}
