import type { FakeToolCall, ModelReply } from './types';

export interface EncodeContext {
  /** The request's arrival index, used to mint ids that differ per request. */
  index: number;
  model: string;
}

/** Splits text into deltas of `size` characters (never empty unless the text is). */
export function split(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += Math.max(1, size)) parts.push(text.slice(i, i + Math.max(1, size)));
  return parts;
}

export function chunkSize(reply: ModelReply): number {
  return reply.chunkSize ?? 12;
}

export function toolId(ctx: EncodeContext, call: FakeToolCall, position: number): string {
  return call.id ?? `call_${ctx.index}_${position}`;
}

/** Rough token counts so usage figures are plausible and deterministic. */
export function usageOf(reply: ModelReply): { input: number; output: number; reasoning: number } {
  const reasoning = Math.ceil((reply.reasoning?.length ?? 0) / 4);
  const tools = (reply.toolCalls ?? []).reduce((n, c) => n + JSON.stringify(c.arguments).length, 0);
  const output = reply.usage?.outputTokens ?? Math.ceil(((reply.text?.length ?? 0) + tools) / 4) + reasoning;
  return { input: reply.usage?.inputTokens ?? 100, output, reasoning };
}

export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}
