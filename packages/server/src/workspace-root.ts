import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { HttpError } from './errors.js';

/** The real path of `path`, resolving symlinks in its longest existing prefix (the rest cannot be a link yet). */
export function realPathOf(path: string): string {
  const absolute = resolve(path);
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return join(realpathSync(current), ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return absolute;
      missing.push(basename(current));
      current = parent;
    }
  }
}

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * The folder every session's workDir must lie in, checked on real paths: a symlink inside the root that
 * points outside it does not pass, nor does `/` or `..` climbing. Returns the workDir to store (resolved).
 */
export function workspaceGuard(root: string): (workDir: string, field?: string) => string {
  const realRoot = realPathOf(root);
  return (workDir, field = 'body.workDir') => {
    if (!isAbsolute(workDir))
      throw new HttpError('invalid_request', 'workDir must be an absolute path', field);
    const resolved = resolve(workDir);
    if (!inside(realRoot, realPathOf(resolved))) {
      throw new HttpError(
        'invalid_request',
        `workDir must lie inside the workspace root ${realRoot} (serve --workspace-root)`,
        field,
      );
    }
    // A folder that does not exist yet is made by the engine; a file in its place can never be one.
    if (statSync(resolved, { throwIfNoEntry: false })?.isDirectory() === false)
      throw new HttpError('invalid_request', 'workDir names a file, not a folder', field);
    return resolved;
  };
}
