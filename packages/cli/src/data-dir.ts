import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CliError } from './cli-error.js';

/** "ENOENT: no such file or directory" out of Node's "ENOENT: no such file or directory, mkdir '/x'". */
const why = (err: unknown): string => {
  const e = err as NodeJS.ErrnoException;
  return (e.message ?? String(err)).split(', ')[0] || e.code || 'unknown error';
};

const isDirectory = (path: string): boolean | undefined => {
  try {
    return statSync(path).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot use the data folder ${path} (${why(err)})`);
  }
};

/**
 * Makes the SQLite data folder, or says in one line why it cannot. Not `mkdirSync(dir, {recursive: true})`:
 * under a pseudo filesystem (/proc, /sys) a missing child answers ENOENT while its parent answers EEXIST, and
 * Node's recursive mkdir retries that pair forever. Here each missing folder is made once, top down, so the
 * work is bounded by the path's depth, and every failure names the folder and the reason.
 */
export function ensureDataDir(dataDir: string): void {
  const target = resolve(dataDir);
  const missing: string[] = [];
  let existing = target;
  for (;;) {
    const dir = isDirectory(existing);
    if (dir === true) break;
    if (dir === false)
      throw new CliError(`cannot create the data folder ${target} (${existing} is not a folder)`);
    missing.unshift(existing);
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  if (missing.length === 0) return;
  try {
    // Fails early with EROFS or EACCES on the folder that would hold the new ones.
    accessSync(existing, constants.W_OK | constants.X_OK);
    for (const dir of missing) mkdirSync(dir);
  } catch (err) {
    throw new CliError(`cannot create the data folder ${target} (${why(err)})`);
  }
}
