import { lstat, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { Type } from 'typebox';
import { type DefinedTool, defineTool, ToolError } from './define-tool.js';
import { runCommandTool } from './run-command.js';
import { MAX_READ, readInside, readInsideIfExists, writeInside } from './workspace-files.js';
import { displayPath, insideWorkspace } from './workspace-path.js';

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
   * Bytes of a command's output shown as terminal.output (default 1 MB); what passes it is streamed to a file
   * in `outputDir` (never held in memory, never an event) that the tool result names.
   */
  maxCommandOutputBytes?: number;
  /** Where output past the bound goes (default `<tmpdir>/agentlane-tool-output`). */
  outputDir?: string;
}

/** The tools a coding agent needs, confined to the session's workspace. */
export function workspaceTools(options: WorkspaceToolOptions = {}): DefinedTool[] {
  const approveWrites = options.approveWrites ?? true;
  return [
    readFileTool(),
    writeFileTool(approveWrites),
    editFileTool(approveWrites),
    listFilesTool(),
    searchFilesTool(),
    runCommandTool({
      approve: options.approveCommands ?? true,
      timeoutMs: options.commandTimeoutMs ?? 60_000,
      outputBound: options.maxCommandOutputBytes ?? 1_000_000,
      outputDir: options.outputDir ?? join(tmpdir(), 'agentlane-tool-output'),
    }),
    askUserTool(),
  ] as DefinedTool[];
}

/** read_file. */
function readFileTool() {
  return defineTool<{ path: string }>({
    name: 'read_file',
    description: 'Read a UTF-8 text file of the workspace.',
    kind: 'read',
    inputSchema: Type.Object({ path: Type.String({ minLength: 1 }) }),
    async execute({ path }, ctx) {
      return await readInside(insideWorkspace(ctx.workspace, path), ctx.workspace, path, MAX_READ);
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
      ? async ({ path, content }, { workspace }) => {
          const abs = insideWorkspace(workspace, path, 'write');
          const before = await readInsideIfExists(abs, workspace, path, MAX_EDIT);
          return {
            title: `Write ${path}`,
            subject: { kind: 'file_edit', path },
            diff: unifiedDiff(displayPath(workspace, abs), before, content).patch,
          };
        }
      : false,
    async execute({ path, content }, ctx) {
      const abs = insideWorkspace(ctx.workspace, path, 'write');
      const before = await writeInside(abs, ctx.workspace, path, content);
      const shown = displayPath(ctx.workspace, abs);
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
      const abs = insideWorkspace(ctx.workspace, path, 'write');
      const before = await readInside(abs, ctx.workspace, path, MAX_EDIT);
      const at = before.indexOf(oldText);
      if (at < 0) throw new ToolError('oldText was not found in the file');
      if (before.indexOf(oldText, at + 1) >= 0)
        throw new ToolError('oldText occurs more than once; give more context');
      const after = before.slice(0, at) + newText + before.slice(at + oldText.length);
      await writeInside(abs, ctx.workspace, path, after);
      const shown = displayPath(ctx.workspace, abs);
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
      const abs = insideWorkspace(ctx.workspace, path && path.length > 0 ? path : '.');
      const entries = await readdir(abs, { withFileTypes: true });
      return entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
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
      const root = insideWorkspace(ctx.workspace, path && path.length > 0 ? path : '.');
      const matches: string[] = [];
      const walk = async (dir: string): Promise<void> => {
        for (const e of await readdir(dir, { withFileTypes: true })) {
          if (matches.length >= 200 || ctx.signal.aborted) return;
          if (e.name === 'node_modules' || e.name === '.git') continue;
          const full = join(dir, e.name);
          if (e.isDirectory()) await walk(full);
          else if (e.isFile()) {
            // Links are not followed (Dirent does not), hard-linked files are skipped like read_file refuses them.
            const info = await lstat(full);
            if (info.size > MAX_READ || info.nlink > 1) continue;
            const lines = (await readFile(full, 'utf8')).split('\n');
            lines.forEach((line, i) => {
              if (matches.length < 200 && line.includes(pattern))
                matches.push(`${relative(ctx.workspace, full)}:${i + 1}: ${line}`);
            });
          }
        }
      };
      await walk(root);
      return matches;
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
