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
    if (folderState(resolved, field)?.isDirectory() === false)
      throw new HttpError('invalid_request', 'workDir names a file, not a folder', field);
    return resolved;
  };
}

/** Why a path can never become a folder, as the client's error (the raw error would be a 500 with its stack). */
const UNUSABLE: Record<string, string> = {
  ENOTDIR: 'workDir goes through a file, not a folder',
  ELOOP: 'workDir goes through a loop of symbolic links',
  ENAMETOOLONG: 'workDir has a name too long for the file system',
  EACCES: 'workDir is in a folder the server may not look into',
};

function folderState(path: string, field: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (err) {
    const why = UNUSABLE[(err as NodeJS.ErrnoException).code ?? ''];
    if (why) throw new HttpError('invalid_request', why, field);
    throw err;
  }
}
