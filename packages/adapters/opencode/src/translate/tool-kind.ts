import type { ToolKind } from '@agentlane/contract';

/** OpenCode's built-in tool names → what the tool does, so a UI can pick an icon. Unknown tools are `other`. */
const KINDS: Record<string, ToolKind> = {
  read: 'read',
  list: 'read',
  edit: 'edit',
  write: 'edit',
  patch: 'edit',
  multiedit: 'edit',
  apply_patch: 'edit',
  glob: 'search',
  grep: 'search',
  codesearch: 'search',
  bash: 'execute',
  webfetch: 'fetch',
  websearch: 'fetch',
  todowrite: 'think',
  todoread: 'think',
};

export function toolKindOf(name: string): ToolKind {
  return KINDS[name] ?? 'other';
}

/** Tools whose completion reports a file change through `metadata.filepath` / `input.filePath`. */
export function isFileTool(name: string): boolean {
  return name === 'write' || name === 'edit' || name === 'multiedit' || name === 'patch';
}
