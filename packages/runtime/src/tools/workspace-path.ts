import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ToolError } from './define-tool';

/**
 * Resolves a model-given path inside the workspace. Absolute paths, `..` escapes and symlinks that lead out
 * are refused: the check runs on the real path of the nearest existing ancestor, so a link can't smuggle a
 * write outside.
 */
export function insideWorkspace(workspace: string, path: string): string {
  if (typeof path !== 'string' || path.length === 0) throw new ToolError('path must be a non-empty string');
  if (isAbsolute(path))
    throw new ToolError(`absolute paths are refused: ${path} (use a path relative to the workspace)`);
  const root = realpathSync(workspace);
  const target = resolve(root, path);
  if (!within(root, target)) throw new ToolError(`path leaves the workspace: ${path}`);
  let probe = target;
  while (!existsSync(probe) && probe !== root) probe = dirname(probe);
  const real = realpathSync(probe);
  if (!within(root, real)) throw new ToolError(`path leads out of the workspace through a symlink: ${path}`);
  return target;
}

function within(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

export function displayPath(workspace: string, absolute: string): string {
  return relative(realpathSync(workspace), absolute) || '.';
}
