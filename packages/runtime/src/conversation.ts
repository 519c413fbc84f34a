import type { ConversationMessage, JsonValue } from '@agentlane/contract';
import type { ModelMessage } from 'ai';
import { asDeniedOutput } from './approvals.js';
import { wireToolName } from './sse-repair.js';

/** Between two prompts sent as one user message, the first of which got no answer (both runtimes send it). */
export const UNANSWERED_MARK =
  '[No answer was given to the request above: its turn was cancelled or failed.]';

/** The contract's conversation (what checkpoints hold) → AI SDK model messages. Reasoning is not replayed. */
export function toModelMessages(conversation: readonly ConversationMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of conversation) {
    if (m.role === 'user' || m.role === 'system') {
      const text = m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
      const previous = out.at(-1);
      // After a turn that got no answer (cancelled, failed, an empty reply) the next prompt would follow the
      // last one directly. Providers want turns to alternate and the model should know the first request was
      // not answered (else it takes it up again): one user message, the mark between the two texts.
      if (m.role === 'user' && previous?.role === 'user' && typeof previous.content !== 'string') {
        const before = previous.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
        previous.content = [{ type: 'text', text: `${before}\n\n${UNANSWERED_MARK}\n\n${text}` }];
      } else
        out.push(
          m.role === 'user'
            ? { role: 'user', content: [{ type: 'text', text }] }
            : { role: 'system', content: text },
        );
    } else if (m.role === 'assistant') {
      const content: Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string> = [];
      for (const p of m.parts) {
        if (p.type === 'text' && p.text.length > 0) content.push({ type: 'text', text: p.text });
        else if (p.type === 'tool-call')
          content.push({
            type: 'tool-call',
            toolCallId: p.toolCallId,
            toolName: wireToolName(p.toolName),
            input: p.input,
          });
      }
      if (content.length > 0) out.push({ role: 'assistant', content });
    } else {
      out.push({
        role: 'tool',
        content: m.parts.flatMap((p) =>
          p.type === 'tool-result'
            ? [
                {
                  type: 'tool-result' as const,
                  toolCallId: p.toolCallId,
                  toolName: wireToolName(p.toolName),
                  output:
                    (p.isError ? asDeniedOutput(p.output) : null) ??
                    (p.isError
                      ? {
                          type: 'error-text' as const,
                          value: typeof p.output === 'string' ? p.output : JSON.stringify(p.output),
                        }
                      : { type: 'json' as const, value: p.output as never }),
                },
              ]
            : [],
        ),
      });
    }
  }
  return out;
}

export function jsonSafe(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return null;
    return JSON.parse(
      text.includes('\\ud') ? text.replace(LONE_SURROGATE_ESCAPE, '$1\\ufffd') : text,
    ) as JsonValue;
  } catch {
    return String(value);
  }
}

/**
 * A lone surrogate as JSON.stringify writes it (`\ud800`, not after an escaping backslash): no UTF-8 text
 * holds one, so no canonical JSON, and the checkpoint of a turn whose model sent one was refused at the end
 * of the turn, failing it. Replaced by U+FFFD, as a UTF-8 decoder does; a pair is left as it is.
 */
const LONE_SURROGATE_ESCAPE =
  /(?<!\\)((?:\\\\)*)(?:\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2})/g;

/** `text` with every lone surrogate replaced by U+FFFD. */
export const wellFormed = (text: string): string => text.replace(/\p{Cs}/gu, '\ufffd');

/**
 * `value` itself when it is already JSON data (what a JSON round trip returns equal: plain objects and
 * arrays of strings, finite numbers, booleans and null, no undefined, no cycles), else {@link jsonSafe}'s
 * copy. For values nobody mutates afterwards (a conversation message once pushed): it walks the value
 * instead of serialising and parsing it, which for a long answer was megabytes of work on the event loop.
 */
export function asJson(value: unknown): JsonValue {
  return isJsonData(value, 0) ? (value as JsonValue) : jsonSafe(value);
}

function isJsonData(v: unknown, depth: number): boolean {
  if (typeof v === 'string' || typeof v === 'boolean' || v === null) return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  // Deeper than any message: a cycle, or not worth the walk; the round trip decides.
  if (typeof v !== 'object' || depth > 200) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !isJsonData(v[i], depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const k in v) if (!isJsonData((v as Record<string, unknown>)[k], depth + 1)) return false;
  return true;
}
