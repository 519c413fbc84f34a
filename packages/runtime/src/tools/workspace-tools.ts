import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { Type } from 'typebox';
import { type CommandNetwork, commandIsolation } from './command-isolation.js';
import { type DefinedTool, defineTool, ToolError } from './define-tool.js';
import { MAX_TIMER_MS, runCommandTool } from './run-command.js';
import { listInside, MAX_READ, readInside, readInsideIfExists, writeInside } from './workspace-files.js';
import { displayPath, resolveInside, workspaceRoot } from './workspace-path.js';
import { searchInside } from './workspace-search.js';

export function unifiedDiff(path: string, before: string | null, after: string) {
  const patch = createTwoFilesPatch(
    before === null ? '/dev/null' : `a/${path}`,
    `b/${path}`,
    before ?? '',
    after,
    undefined,
    undefined,
    {
      context: 3,
    },
  );
  let additions = 0;
  let deletions = 0;
  for (const line of patch.split('\n').slice(2)) {
    if (line.startsWith('+') && !line.startsWith('+++')) additions++;
    else if (line.startsWith('-') && !line.startsWith('---')) deletions++;
  }
  return { patch, additions, deletions };
}

/** What a write or an edit may replace (the diff shows it whole). */
const MAX_EDIT = 16 * MAX_READ;

export interface WorkspaceToolOptions {
  /** Writes and edits ask first (default true). */
  approveWrites?: boolean;
  /** Commands ask first (default true). */
  approveCommands?: boolean;
  /** Default command timeout (default 60 s). */
  commandTimeoutMs?: number;
  /**
   * The longest timeout a run_command call may ask for with its own `timeoutMs` (default 30 min; a longer one
   * is cut to it, the result says `timeoutCappedAt`). At most 2147483647, Node's longest timer.
   */
  maxCommandTimeoutMs?: number;
  /**
   * Bytes of a command's output shown as terminal.output (default 1 MB); what passes it is streamed to a file
   * in `outputDir` (never held in memory, never an event) that the tool result names.
   */
  maxCommandOutputBytes?: number;
  /**
   * The most a command's overflow file keeps (default 64 MiB): its head and its last 64 KiB, with a line
   * saying how many bytes between them were dropped (the result's `overflow.droppedBytes`). It becomes an
   * artifact in the store, so this bounds the disk and the store per command too.
   */
  maxCommandOutputFileBytes?: number;
  /** Where output past the bound goes (default `<tmpdir>/agentlane-tool-output`). */
  outputDir?: string;
  /**
   * Commands run in a PID namespace of their own, where they see only their own processes (default true; the
   * machine may not allow it: `commandIsolation()` says, and the process warns once, code
   * `AGENTLANE_COMMAND_ISOLATION`).
   */
  isolateCommands?: boolean;
  /**
   * `shared` (default): commands use the server's network. `none`: a network namespace of their own with no
   * interface up, so no internet and no way to the server's own API (which has no authentication in loopback
   * mode); a command is refused where the machine gives no namespace. Needs `isolateCommands`.
   */
  commandNetwork?: CommandNetwork;
}

/** Default of maxCommandTimeoutMs. */
export const MAX_COMMAND_TIMEOUT_MS = 30 * 60_000;
/** Default of maxCommandOutputFileBytes. */
export const MAX_COMMAND_FILE_BYTES = 64 * 1024 * 1024;

/** The tools a coding agent needs, confined to the session's workspace. */
export function workspaceTools(options: WorkspaceToolOptions = {}): DefinedTool[] {
  const approveWrites = options.approveWrites ?? true;
  const maxTimeoutMs = limit('maxCommandTimeoutMs', options.maxCommandTimeoutMs, MAX_COMMAND_TIMEOUT_MS);
  const timeoutMs = limit('commandTimeoutMs', options.commandTimeoutMs, 60_000);
  if (timeoutMs > maxTimeoutMs)
    throw new Error(`commandTimeoutMs (${timeoutMs}) is longer than maxCommandTimeoutMs (${maxTimeoutMs})`);
  const isolate = options.isolateCommands ?? true;
  // Decided now, off the request path: the first command then waits for nothing.
  if (isolate) void commandIsolation();
  return [
    readFileTool(),
    writeFileTool(approveWrites),
    editFileTool(approveWrites),
    listFilesTool(),
    searchFilesTool(),
    runCommandTool({
      approve: options.approveCommands ?? true,
      timeoutMs,
      maxTimeoutMs,
      outputBound: options.maxCommandOutputBytes ?? 1_000_000,
      outputFileBound: limit(
        'maxCommandOutputFileBytes',
        options.maxCommandOutputFileBytes,
        MAX_COMMAND_FILE_BYTES,
        Number.MAX_SAFE_INTEGER,
      ),
      outputDir: options.outputDir ?? join(tmpdir(), 'agentlane-tool-output'),
      isolate,
      network: commandNetwork(options),
    }),
    askUserTool(),
  ] as DefinedTool[];
}

function commandNetwork(options: WorkspaceToolOptions): CommandNetwork {
  const network = options.commandNetwork ?? 'shared';
  if (network !== 'shared' && network !== 'none')
    throw new Error(`commandNetwork must be 'shared' or 'none' (got ${JSON.stringify(network)})`);
  if (network === 'none' && options.isolateCommands === false)
    throw new Error("commandNetwork 'none' needs isolateCommands (a namespace of the command's own)");
  return network;
}

/** A positive integer option (at most `max`: a timer past Node's longest fires at once), else its default. */
function limit(name: string, value: number | undefined, fallback: number, max = MAX_TIMER_MS): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new Error(`${name} must be an integer from 1 to ${max} (got ${String(value)})`);
  return value;
}

/** read_file. */
function readFileTool() {
  return defineTool<{ path: string }>({
    name: 'read_file',
    description: 'Read a UTF-8 text file of the workspace.',
    kind: 'read',
    inputSchema: Type.Object({ path: Type.String({ minLength: 1 }) }),
    async execute({ path }, ctx) {
      const root = workspaceRoot(ctx);
      return await readInside(root, resolveInside(root, path), path, MAX_READ);
    },
  });
}

/** write_file: asks with the diff of the write. */
function writeFileTool(approveWrites: boolean) {
  return defineTool<{ path: string; content: string }>({
    name: 'write_file',
    description: 'Create or overwrite a text file in the workspace.',
    kind: 'edit',
    inputSchema: Type.Object({ path: Type.String({ minLength: 1 }), content: Type.String() }),
    needsApproval: approveWrites
      ? async ({ path, content }, where) => {
          const root = workspaceRoot(where);
          const abs = resolveInside(root, path, 'write');
          const before = await readInsideIfExists(root, abs, path, MAX_EDIT);
          return {
            title: `Write ${path}`,
            subject: { kind: 'file_edit', path },
            diff: unifiedDiff(displayPath(root, abs), before, content).patch,
          };
        }
      : false,
    async execute({ path, content }, ctx) {
      const root = workspaceRoot(ctx);
      const abs = resolveInside(root, path, 'write');
      const before = await writeInside(root, abs, path, content);
      const shown = displayPath(root, abs);
      const d = unifiedDiff(shown, before, content);
      ctx.fileChanged({
        path: shown,
        change: before === null ? 'created' : 'modified',
        diff: d.patch,
        additions: d.additions,
        deletions: d.deletions,
      });
      return { path: shown, bytes: Buffer.byteLength(content) };
    },
  });
}

/** edit_file: one exact replacement. */
function editFileTool(approveWrites: boolean) {
  return defineTool<{ path: string; oldText: string; newText: string }>({
    name: 'edit_file',
    description: 'Replace one exact occurrence of oldText with newText in a workspace file.',
    kind: 'edit',
    inputSchema: Type.Object({
      path: Type.String({ minLength: 1 }),
      oldText: Type.String({ minLength: 1 }),
      newText: Type.String(),
    }),
    needsApproval: approveWrites
      ? ({ path }) => ({ title: `Edit ${path}`, subject: { kind: 'file_edit', path } })
      : false,
    async execute({ path, oldText, newText }, ctx) {
      const root = workspaceRoot(ctx);
      const abs = resolveInside(root, path, 'write');
      const before = await readInside(root, abs, path, MAX_EDIT);
      const at = before.indexOf(oldText);
      if (at < 0) throw new ToolError('oldText was not found in the file');
      if (before.indexOf(oldText, at + 1) >= 0)
        throw new ToolError('oldText occurs more than once; give more context');
      const after = before.slice(0, at) + newText + before.slice(at + oldText.length);
      await writeInside(root, abs, path, after);
      const shown = displayPath(root, abs);
      const d = unifiedDiff(shown, before, after);
      ctx.fileChanged({
        path: shown,
        change: 'modified',
        diff: d.patch,
        additions: d.additions,
        deletions: d.deletions,
      });
      return { path: shown, additions: d.additions, deletions: d.deletions };
    },
  });
}

/** list_files. */
function listFilesTool() {
  return defineTool<{ path?: string }>({
    name: 'list_files',
    description: 'List the entries of a workspace folder (default: the workspace root).',
    kind: 'read',
    inputSchema: Type.Object({ path: Type.Optional(Type.String()) }),
    async execute({ path }, ctx) {
      const root = workspaceRoot(ctx);
      const shown = path && path.length > 0 ? path : '.';
      return await listInside(root, resolveInside(root, shown), shown);
    },
  });
}

/** search_files: at most 200 matching lines. */
function searchFilesTool() {
  return defineTool<{ pattern: string; path?: string }>({
    name: 'search_files',
    description: 'Find lines containing a text (case-sensitive) in workspace files; at most 200 matches.',
    kind: 'search',
    inputSchema: Type.Object({ pattern: Type.String({ minLength: 1 }), path: Type.Optional(Type.String()) }),
    async execute({ pattern, path }, ctx) {
      const root = workspaceRoot(ctx);
      const shown = path && path.length > 0 ? path : '.';
      return await searchInside(root, resolveInside(root, shown), shown, pattern, ctx.signal);
    },
  });
}

/** ask_user: a question to the user, answered through the harness. */
function askUserTool() {
  return defineTool<{ prompt: string; choices?: string[] }>({
    name: 'ask_user',
    description: 'Ask the user a question and wait for the answer.',
    kind: 'other',
    inputSchema: Type.Object({
      prompt: Type.String({ minLength: 1 }),
      choices: Type.Optional(Type.Array(Type.String())),
    }),
    async execute({ prompt, choices }, ctx) {
      const answer = await ctx.ask({
        prompt,
        choices: (choices ?? []).map((label, i) => ({ id: `c${i + 1}`, label })),
        allowFreeText: true,
      });
      return answer as never;
    },
  });
}
