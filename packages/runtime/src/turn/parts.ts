import type { ConversationMessage, JsonObject, JsonValue } from '@agentlane/contract';
import { jsonSafe, wellFormed } from '../conversation.js';
import { ModelStreamTimeout, ModelStreamTruncated } from '../model-fetch.js';

/** A tool call or a stage that was cancelled (the signal fired while it ran). */
export class CancelledError extends Error {}

export function partText(m: ConversationMessage): string {
  return m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

export function errorText(err: unknown): string {
  // The SDK wraps what fails while it reads a stream as "Failed to process successful response"; the
  // engine's own stall and truncation errors say what happened, so they are the message.
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof ModelStreamTimeout || e instanceof ModelStreamTruncated) return e.message;
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && 'message' in err)
    return String((err as { message: unknown }).message);
  return String(err);
}

const DROP = new Set(['request', 'response', 'providerMetadata', 'warnings', 'rawValue', 'providerOptions']);

/** An AI SDK stream part as JSON: no request/response bodies or headers, errors as messages. */
export function safePart(part: Record<string, unknown>): JsonObject {
  if (part.type === 'text-delta' || part.type === 'reasoning-delta')
    return { type: part.type, id: String(part.id), text: wellFormed(String(part.text)) };
  if (part.type === 'error') return { type: 'error', message: errorText(part.error) };
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(part)) {
    if (DROP.has(k) || v === undefined) continue;
    out[k] = jsonSafe(v);
  }
  if (part.type === 'finish-step') out.usage = jsonSafe(part.usage);
  return out;
}

/** The token counts of an AI SDK usage object (absent or non-numeric ones left out). */
export function numbers(usage: JsonObject) {
  const out: {
    inputTokens?: number;
    outputTokens?: number;
    reasoningTokens?: number;
    cachedInputTokens?: number;
  } = {};
  const n = (v: JsonValue | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const set = (k: keyof typeof out, v: number | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set('inputTokens', n(usage.inputTokens));
  set('outputTokens', n(usage.outputTokens));
  set('reasoningTokens', n(usage.reasoningTokens));
  set('cachedInputTokens', n(usage.cachedInputTokens));
  return out;
}

export function nonZero(t: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(t).filter(([, v]) => v > 0));
}
