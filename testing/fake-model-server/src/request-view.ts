import type { ModelApi, RecordedRequest } from './types';

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function classifyApi(method: string, path: string): ModelApi {
  if (method !== 'POST') return 'unknown';
  if (/\/messages$/.test(path)) return 'anthropic-messages';
  if (/\/responses$/.test(path)) return 'openai-responses';
  if (/\/chat\/completions$/.test(path)) return 'openai-chat';
  if (/\/models\/[^/]+:(streamGenerateContent|generateContent)$/.test(path)) return 'gemini';
  return 'unknown';
}

interface HistoryView {
  toolResultsSinceUserPrompt: number;
  lastUserPrompt?: string;
}

/** Text of a content value that may be a string or a list of typed parts. */
function textOf(content: unknown, textTypes: string[]): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .filter((p) => isObj(p) && textTypes.includes(String(p.type)) && typeof p.text === 'string')
    .map((p) => (p as Obj).text as string)
    .join('');
}

/**
 * Walks the history oldest first: a user message with real text resets the count, a tool result
 * increments it. Engines add reminders and developer messages around tool results, so only
 * "tool results after the last prompt" is a reliable end-of-turn signal.
 */
export function viewHistory(api: ModelApi, body: unknown): HistoryView {
  const view: HistoryView = { toolResultsSinceUserPrompt: 0 };
  if (!isObj(body)) return view;
  const prompt = (text: string) => {
    view.toolResultsSinceUserPrompt = 0;
    view.lastUserPrompt = text;
  };
  if (api === 'anthropic-messages') {
    for (const m of arr(body.messages)) {
      if (!isObj(m) || m.role !== 'user') continue;
      const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : arr(m.content);
      const results = parts.filter((p) => isObj(p) && p.type === 'tool_result').length;
      if (results > 0) view.toolResultsSinceUserPrompt += results;
      else {
        const text = textOf(parts, ['text']);
        // Claude Code wraps context in <system-reminder> blocks; the prompt is the last plain block.
        const plain = parts
          .filter((p) => isObj(p) && p.type === 'text' && !String(p.text).startsWith('<system-reminder>'))
          .map((p) => (p as Obj).text as string);
        if (text.length > 0) prompt(plain.at(-1) ?? text);
      }
    }
  } else if (api === 'openai-responses') {
    for (const item of arr(body.input)) {
      if (!isObj(item)) continue;
      if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
        view.toolResultsSinceUserPrompt += 1;
      } else if ((item.type === 'message' || item.type === undefined) && item.role === 'user') {
        const text = textOf(item.content, ['input_text', 'text']);
        // Codex sends its environment context and instructions as user messages too.
        if (text.length > 0 && !/^\s*<(environment_context|user_instructions|permissions)/.test(text)) {
          prompt(text);
        }
      }
    }
  } else if (api === 'openai-chat') {
    for (const m of arr(body.messages)) {
      if (!isObj(m)) continue;
      if (m.role === 'tool') view.toolResultsSinceUserPrompt += 1;
      else if (m.role === 'user') {
        const text = textOf(m.content, ['text']);
        if (text.length > 0) prompt(text);
      }
    }
  } else if (api === 'gemini') {
    for (const c of arr(body.contents)) {
      if (!isObj(c) || c.role !== 'user') continue;
      const parts = arr(c.parts);
      const results = parts.filter((p) => isObj(p) && isObj(p.functionResponse)).length;
      if (results > 0) view.toolResultsSinceUserPrompt += results;
      else {
        const text = parts
          .filter((p) => isObj(p) && typeof p.text === 'string')
          .map((p) => (p as Obj).text as string)
          .join('');
        if (text.length > 0) prompt(text);
      }
    }
  }
  return view;
}

export function toolNamesOf(api: ModelApi, body: unknown): string[] {
  if (!isObj(body)) return [];
  const names: string[] = [];
  for (const t of arr(body.tools)) {
    if (!isObj(t)) continue;
    if (api === 'gemini') {
      for (const d of arr(t.functionDeclarations))
        if (isObj(d) && typeof d.name === 'string') names.push(d.name);
    } else if (typeof t.name === 'string') names.push(t.name);
    else if (isObj(t.function) && typeof t.function.name === 'string') names.push(t.function.name);
  }
  return names;
}

export function wantsStream(
  api: ModelApi,
  path: string,
  query: Record<string, string>,
  body: unknown,
): boolean {
  if (api === 'gemini') return path.endsWith(':streamGenerateContent') || query.alt === 'sse';
  return isObj(body) && body.stream === true;
}

export function modelOf(api: ModelApi, path: string, body: unknown): string | undefined {
  if (api === 'gemini') return /\/models\/([^/:]+):/.exec(path)?.[1];
  return isObj(body) && typeof body.model === 'string' ? body.model : undefined;
}

export type { RecordedRequest };
