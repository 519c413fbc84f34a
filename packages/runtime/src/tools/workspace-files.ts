import { constants, type Dirent } from 'node:fs';
import { type FileHandle, readdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { ToolError } from './define-tool.js';
import { folderPath, type OpenFolder, openFileIn, openFolder, whereOpen } from './workspace-fd.js';
import { within } from './workspace-path.js';

/** The largest file read_file and search_files read (and what a command's result keeps of its output). */
export const MAX_READ = 256 * 1024;

/*
 * The file operations of the workspace tools. `root` is the workspace's pinned real path (workspaceRoot) and
 * `abs` a path resolveInside returned under it; every folder and file is opened level by level from the root
 * and checked once open (workspace-fd.ts), so the checks hold even if a folder is swapped for a link meanwhile.
 * A write never truncates before the checks passed.
 */

/** Runs `use` with the folder holding `abs` open (made level by level first when `create`). */
async function inFolder<T>(
  root: string,
  abs: string,
  shown: string,
  create: boolean,
  use: (dir: OpenFolder, name: string) => Promise<T>,
): Promise<T> {
  if (abs === root) throw new ToolError(`not a regular file: ${shown}`);
  const dir = await openFolder(root, dirname(abs), shown, create);
  try {
    return await use(dir, basename(abs));
  } finally {
    await dir.handle.close();
  }
}

/** An open file's text, refused past `maxBytes`. */
export async function readOpen(handle: FileHandle, shown: string, maxBytes: number): Promise<string> {
  const { size } = await handle.stat();
  if (size > maxBytes) throw new ToolError(`file is larger than ${maxBytes} bytes: ${shown}`);
  return await handle.readFile('utf8');
}

/** A workspace text file's content, at most `maxBytes`. */
export async function readInside(
  root: string,
  abs: string,
  shown: string,
  maxBytes: number,
): Promise<string> {
  return await inFolder(root, abs, shown, false, async (dir, name) => {
    const handle = await openFileIn(dir, name, constants.O_RDONLY, root, shown);
    try {
      return await readOpen(handle, shown, maxBytes);
    } finally {
      await handle.close();
    }
  });
}

/** The content, or null when there is no file (a link or a hard-linked file is still refused). */
export async function readInsideIfExists(root: string, abs: string, shown: string, maxBytes: number) {
  try {
    return await readInside(root, abs, shown, maxBytes);
  } catch (err) {
    if (err instanceof ToolError && err.message.startsWith('no such file')) return null;
    throw err;
  }
}

/** Writes `content` (creating folders and the file as needed); returns what the file held before, or null. */
export async function writeInside(root: string, abs: string, shown: string, content: string) {
  return await inFolder(root, abs, shown, true, async (dir, name) => {
    let handle: FileHandle;
    let existed = true;
    try {
      handle = await openFileIn(dir, name, constants.O_RDWR, root, shown);
    } catch (err) {
      if (!(err instanceof ToolError && err.message.startsWith('no such file'))) throw err;
      existed = false;
      handle = await openFileIn(
        dir,
        name,
        constants.O_RDWR | constants.O_CREAT | constants.O_EXCL,
        root,
        shown,
      );
    }
    try {
      const before = existed ? await handle.readFile('utf8') : null;
      await handle.truncate(0);
      await handle.write(content, 0, 'utf8');
      return before;
    } finally {
      await handle.close();
    }
  });
}

/**
 * The entries of an open folder, read through its fd (on Linux the folder the fd holds, whatever its path
 * leads to now); without /proc the folder's real path is checked again after reading.
 */
export async function readFolder(dir: OpenFolder, root: string, shown: string): Promise<Dirent[]> {
  const entries = await readdir(folderPath(dir), { withFileTypes: true });
  const at = await whereOpen(dir.handle, dir.path);
  if (at === null || !within(root, at)) throw new ToolError(`path leads out of the workspace: ${shown}`);
  return entries;
}

/** list_files: a folder's entries, folders with a trailing slash, sorted. */
export async function listInside(root: string, abs: string, shown: string): Promise<string[]> {
  const dir = await openFolder(root, abs, shown);
  try {
    const entries = await readFolder(dir, root, shown);
    return entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
  } finally {
    await dir.handle.close();
  }
}
