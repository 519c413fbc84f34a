import type { FakeToolCall, ModelReply, RecordedRequest, Scenario } from './types';

/** A tool call fixed in advance, or chosen from what the request offers (tools differ per engine). */
export type ToolChoice = FakeToolCall | ((request: RecordedRequest) => FakeToolCall);

export interface ToolThenAnswerOptions {
  tool: ToolChoice;
  reasoning?: string;
  /** Text streamed before the tool call on turn 1. */
  preamble?: string;
  /** The final answer once a tool result is in the history. */
  answer?: string;
  chunkDelayMs?: number;
}

/** "Call one tool, then answer": turn 1 = thinking + text + tool call; after a tool result, the answer. */
export function toolThenAnswer(options: ToolThenAnswerOptions): Scenario {
  return (request) => {
    if (request.toolResultsSinceUserPrompt > 0) {
      return { text: options.answer ?? 'Done: the file is written.', chunkDelayMs: options.chunkDelayMs };
    }
    const tool = typeof options.tool === 'function' ? options.tool(request) : options.tool;
    return {
      reasoning: options.reasoning ?? 'The user wants a file. I will call the tool.',
      text: options.preamble ?? 'I will write the file now.',
      toolCalls: [tool],
      chunkDelayMs: options.chunkDelayMs,
    };
  };
}

/** A plain answer, with optional reasoning. */
export function answer(text: string, reasoning?: string): Scenario {
  return () => ({ text, reasoning });
}

/** A long answer of `words` words, streamed in small chunks. */
export function longAnswer(words = 2000): Scenario {
  const text = Array.from({ length: words }, (_, i) => `word${i}`).join(' ');
  return () => ({ reasoning: 'Writing a long answer.', text, chunkSize: 24 });
}

/** A slow stream: `chunks` text chunks, `delayMs` apart, so a test can cancel mid-stream. */
export function slowStream(options: { chunks?: number; delayMs?: number } = {}): Scenario {
  const chunks = options.chunks ?? 200;
  const text = Array.from({ length: chunks }, (_, i) => `slow${i} `).join('');
  return () => ({ reasoning: 'Thinking slowly.', text, chunkSize: 6, chunkDelayMs: options.delayMs ?? 100 });
}

/** The provider fails the request. 400 by default: no provider SDK retries it, so tests stay fast. */
export function providerError(message = 'fake provider error', status = 400): Scenario {
  return () => ({ error: { status, message } });
}

/** Replies in order, one per request; the last one repeats. */
export function scripted(replies: ModelReply[]): Scenario {
  let next = 0;
  return () => {
    const reply = replies[Math.min(next, replies.length - 1)] ?? { text: '' };
    next += 1;
    return reply;
  };
}

/**
 * Writes `content` to the absolute `path` with whichever file-writing tool the engine offers, so one
 * scenario serves every engine. Codex only has a shell tool here, so it gets a command.
 */
export function writeFileTool(path: string, content: string): (request: RecordedRequest) => FakeToolCall {
  return (request) => {
    const names = new Set(request.toolNames);
    if (names.has('Write')) return { name: 'Write', arguments: { file_path: path, content } };
    if (names.has('write_file')) return { name: 'write_file', arguments: { file_path: path, content } };
    if (names.has('write'))
      // OpenCode's write takes `filePath`, pi's `path`.
      return {
        name: 'write',
        arguments: takesArgument(request, 'write', 'path') ? { path, content } : { filePath: path, content },
      };
    // GitHub Copilot CLI's file-creating tool.
    if (names.has('create')) return { name: 'create', arguments: { path, file_text: content } };
    // Cline's editor (offered to models outside the GPT family; those get its apply_patch below).
    if (names.has('editor')) return { name: 'editor', arguments: { path, new_text: content } };
    if (names.has('apply_patch') && request.api === 'openai-responses') {
      // Codex's freeform patch tool takes paths relative to its cwd (named in its environment context).
      const cwd = /<cwd>([^<]+)<\/cwd>/.exec(JSON.stringify(request.body))?.[1];
      const rel = cwd && path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path;
      const lines = content
        .replace(/\n$/, '')
        .split('\n')
        .map((l) => `+${l}`);
      const patch = ['*** Begin Patch', `*** Add File: ${rel}`, ...lines, '*** End Patch', ''].join('\n');
      return { name: 'apply_patch', arguments: {}, input: patch };
    }
    if (names.has('apply_patch') && request.api === 'openai-chat') {
      // Cline's apply_patch (for GPT models) is a function taking the patch text as its `input`. It joins
      // the added lines without a final newline, so a trailing newline is one more (empty) added line.
      const lines = content.split('\n').map((l) => `+${l}`);
      const patch = ['*** Begin Patch', `*** Add File: ${path}`, ...lines, '*** End Patch', ''].join('\n');
      return { name: 'apply_patch', arguments: { input: patch } };
    }
    if (names.has('exec_command')) {
      const dir = path.slice(0, Math.max(1, path.lastIndexOf('/')));
      return {
        name: 'exec_command',
        arguments: { cmd: `printf '%s' ${shellQuote(content)} > ${shellQuote(path)}`, workdir: dir },
      };
    }
    if (names.has('shell'))
      return {
        name: 'shell',
        arguments: { command: ['sh', '-c', `printf '%s' ${shellQuote(content)} > ${shellQuote(path)}`] },
      };
    return { name: 'write_file', arguments: { path, content } };
  };
}

/** Whether the Chat Completions tool `name` of the request declares the parameter `param`. */
function takesArgument(request: RecordedRequest, name: string, param: string): boolean {
  const tools = (request.body as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return false;
  return tools.some((tool: { function?: { name?: unknown; parameters?: { properties?: object } } }) => {
    const fn = tool?.function;
    return fn?.name === name && param in (fn.parameters?.properties ?? {});
  });
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Scenario names for the CLI. */
export const NAMED_SCENARIOS = [
  'tool-then-answer',
  'answer',
  'long-answer',
  'slow-stream',
  'provider-error',
] as const;
