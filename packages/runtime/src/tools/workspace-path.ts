import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from './define-tool.js';

/**
 * Resolves a model-given path inside the workspace. Absolute paths and `..` escapes are refused; then every
 * component is looked at with lstat from the workspace's real root down: a symlinked folder must lead
 * inside, and the last component is never followed for a write (a dangling link is refused too, as
 * following it would create a file wherever it points). A read may go through a link whose target is
 * inside. The files themselves are opened with O_NOFOLLOW and checked again (workspace-files.ts).
 */
export function insideWorkspace(workspace: string, path: string, mode: 'read' | 'write' = 'read'): string {
  return resolveInside(realpathSync(workspace), path, mode);
}

/** insideWorkspace under a root already known to be the workspace's real path (workspaceRoot). */
export function resolveInside(root: string, path: string, mode: 'read' | 'write' = 'read'): string {
  if (typeof path !== 'string' || path.length === 0) throw new ToolError('path must be a non-empty string');
  // Node refuses such a path with an error naming the resolved absolute path (the workspace's place).
  if (path.includes('\u0000')) throw new ToolError('path must not contain a NUL character');
  if (isAbsolute(path))
    throw new ToolError(`absolute paths are refused: ${path} (use a path relative to the workspace)`);
  const target = resolve(root, path);
  if (!within(root, target)) throw new ToolError(`path leaves the workspace: ${path}`);
  const parts = relative(root, target)
    .split(sep)
    .filter((p) => p.length > 0);
  let at = root;
  for (let i = 0; i < parts.length; i++) {
    const next = join(at, parts[i] as string);
    const last = i === parts.length - 1;
    const info = lstatOrNull(next, path);
    // What does not exist yet has nothing to follow (a write creates it under the real folder `at`).
    if (!info) return join(at, ...parts.slice(i));
    if (info.isSymbolicLink()) {
      if (last && mode === 'write')
        throw new ToolError(`path is a symlink: ${path} (writes never follow links)`);
      let real: string;
      try {
        real = realpathSync(next);
      } catch {
        throw new ToolError(`path goes through a dangling symlink: ${path}`);
      }
      if (!within(root, real))
        throw new ToolError(`path leads out of the workspace through a symlink: ${path}`);
      at = real;
    } else {
      if (!last && !info.isDirectory()) throw new ToolError(`not a folder: ${relative(root, next)}`);
      at = next;
    }
  }
  return at;
}

function lstatOrNull(path: string, shown: string) {
  try {
    return lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    // Not the error itself: its message names the absolute path, which the model was never given.
    throw new ToolError(`cannot look at ${shown}: ${code ?? 'error'}`);
  }
}

export function within(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** A path under the workspace's real root as the model and the events show it. */
export function displayPath(root: string, absolute: string): string {
  return relative(root, absolute) || '.';
}

/**
 * The root a workspace tool works under: the real path the runtime pinned for the session, refused when the
 * workspace folder no longer resolves to it — an earlier command may have replaced it with a link out of the
 * workspace (`rm -r ws && ln -s /elsewhere ws`), and every path the tools check would then lead there.
 * Everything after this is opened from the pinned root and checked against it (workspace-fd.ts), so a swap
 * after this check is caught too.
 */
export function workspaceRoot(ctx: { workspace: string; workspaceRoot?: string }): string {
  let now: string;
  try {
    now = realpathSync(ctx.workspace);
  } catch {
    throw new ToolError(`the workspace folder is gone: ${ctx.workspace}`);
  }
  const pinned = ctx.workspaceRoot ?? now;
  if (now !== pinned)
    throw new ToolError(
      `the workspace folder ${ctx.workspace} no longer resolves to ${pinned}, where the session started ` +
        '(it was moved or replaced, e.g. by a link): the file tools refuse to work there',
    );
  return pinned;
}
