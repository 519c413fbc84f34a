import { AsyncLocalStorage } from 'node:async_hooks';
import { realpathSync } from 'node:fs';
import { terminalRedactor } from '../redact.js';
import { TerminalRedaction } from '../terminal-redaction.js';
import type { ToolContext } from '../tools/define-tool.js';
import type { TurnContext } from './context.js';
import type { SessionMemory } from './deps.js';
import type { ToolCall } from './model-call.js';

/** The workspace's real path each session pinned, by its memory (which lives exactly as long as the session). */
const pinned = new WeakMap<SessionMemory, string>();
/** The root of the tool call running now: a sub-agent, which runs inside its parent's `task` call, keeps it. */
const callRoot = new AsyncLocalStorage<string>();
/** The redaction of each tool context's terminal output, made at its first chunk (endTerminals flushes it). */
const terminalsOf = new WeakMap<ToolContext, TerminalRedaction>();

/**
 * The workspace's real path, resolved once, before the session's first tool call (a sub-agent's session
 * takes its parent's): the workspace tools refuse to work once the folder resolves elsewhere — a command may
 * have replaced it with a link out (workspaceRoot). Undefined while the folder does not exist.
 */
export function pinnedRoot(ctx: TurnContext): string | undefined {
  let root = pinned.get(ctx.mem) ?? callRoot.getStore();
  if (root === undefined) {
    try {
      root = realpathSync(ctx.deps.workspace);
    } catch {
      return undefined;
    }
  }
  pinned.set(ctx.mem, root);
  return root;
}

/** Runs a tool with its root as the call's (what a sub-agent started inside it pins). */
export function withRoot<T>(root: string | undefined, run: () => Promise<T>): Promise<T> {
  return root === undefined ? run() : callRoot.run(root, run);
}

/** What a running tool can do: report progress and terminal output, files and artifacts, ask the user. */
export function toolContext(ctx: TurnContext, call: ToolCall, root = pinnedRoot(ctx)): ToolContext {
  const { emit } = ctx;
  const tctx: ToolContext = {
    signal: ctx.io.signal,
    workspace: ctx.deps.workspace,
    ...(root !== undefined ? { workspaceRoot: root } : {}),
    // The model's keys (the configured one and the provider's variable): no variable holding one reaches a
    // command, whatever its name.
    secrets: [...ctx.secrets],
    toolCallId: call.toolCallId,
    progress: (message) => emit({ rt: 'tool.progress', toolCallId: call.toolCallId, message }),
    terminal: (c) => terminal(ctx, call, c, terminalsFor(ctx, tctx)),
    terminalFile: (terminalId) => terminalsFor(ctx, tctx).file(terminalId),
    fileChanged: (c) => emit({ rt: 'file', toolCallId: call.toolCallId, ...c }),
    artifact: (a) => {
      if ('file' in a) {
        const { path, bytes, sha256 } = a.file;
        emit({ rt: 'artifact', toolCallId: call.toolCallId, ...a, file: { path, bytes, sha256 } });
        return;
      }
      const { content, ...rest } = a;
      emit({
        rt: 'artifact',
        toolCallId: call.toolCallId,
        ...rest,
        ...(typeof content === 'string'
          ? { content }
          : { content: Buffer.from(content).toString('base64'), encoding: 'base64' as const }),
      });
    },
    ask: async (q) => {
      const questionId = `q-${ctx.deps.scope ?? ''}${call.toolCallId}`;
      emit({
        rt: 'question',
        questionId,
        toolCallId: call.toolCallId,
        prompt: q.prompt,
        choices: q.choices ?? [],
        multiple: q.multiple ?? false,
        allowFreeText: q.allowFreeText ?? true,
      });
      const a = await ctx.io.awaitQuestion(questionId);
      return {
        outcome: a.outcome,
        ...(a.choiceIds ? { choiceIds: a.choiceIds } : {}),
        ...(a.text !== undefined ? { text: a.text } : {}),
      };
    },
  };
  return tctx;
}

/** The redaction of a tool context's terminal output, made when first needed. */
function terminalsFor(ctx: TurnContext, tctx: ToolContext): TerminalRedaction {
  let terminals = terminalsOf.get(tctx);
  if (!terminals) {
    terminals = new TerminalRedaction(terminalRedactor([...ctx.secrets]));
    terminalsOf.set(tctx, terminals);
  }
  return terminals;
}

/**
 * The end of a tool call: what its terminals' redaction still holds goes out (a tool that never reported its
 * terminal's exit). Nothing counts against the output bound: the chunks it came from did.
 */
export function endTerminals(ctx: TurnContext, call: ToolCall, tctx: ToolContext): void {
  for (const c of terminalsOf.get(tctx)?.rest() ?? [])
    ctx.emit({ rt: 'terminal', toolCallId: call.toolCallId, ...c });
}

/**
 * A terminal chunk, shown while the turn's output bound has room (false: not shown, keep it elsewhere); the
 * secrets in it redacted across the terminal's chunks (TerminalRedaction), so what goes out may be less than
 * the chunk (held until the next) or more (with the tails it releases).
 */
function terminal(
  ctx: TurnContext,
  call: ToolCall,
  c: Parameters<ToolContext['terminal']>[0],
  terminals: TerminalRedaction,
): boolean {
  const out = ctx.output;
  const bytes = Buffer.byteLength(c.chunk);
  if (c.exit === undefined && bytes > 0 && out.shown + bytes > out.bound) {
    if (!out.outputWarned)
      ctx.emit({
        rt: 'warning',
        code: 'output_limit',
        message: `terminal output of this turn passed ${out.bound} bytes (turnOutputBytes): the rest is not shown`,
        detail: { limit: out.bound, spent: out.shown },
      });
    out.outputWarned = true;
    return false;
  }
  out.shown += bytes;
  for (const shown of terminals.chunk(c)) ctx.emit({ rt: 'terminal', toolCallId: call.toolCallId, ...shown });
  return true;
}
