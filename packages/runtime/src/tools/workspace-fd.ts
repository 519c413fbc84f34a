import { constants, existsSync, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath, rmdir, unlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ToolError } from './define-tool.js';
import { within } from './workspace-path.js';

/**
 * Folders and files of the workspace are reached one level at a time from the pinned root, each level held
 * open and checked, never through a path looked at earlier: a process racing the tools (swapping a folder
 * for a link out of the workspace between a check and a use) can make a call fail, never make it read,
 * list, create or write anything outside.
 *
 * On Linux an open folder's entries are reached through its /proc/self/fd link, which the kernel resolves to
 * the folder it holds (openat without openat): a link swapped in for any folder on the way since it was
 * checked is not on the path at all. Where there is no /proc, the folder's path is used and the real path
 * of what was opened is checked after the open (a narrower window, not none).
 */
const PROC = existsSync('/proc/self/fd');

const DIR = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Test seam: awaited right before each open or mkdir of a workspace path (`path` is where it is meant to
 * be), so a test can swap a folder for a link exactly between the check and the use.
 */
export const raceHook: { beforeOpen?: (path: string) => void | Promise<void> } = {};

/** A workspace folder held open; its entries are reached through it (entryPath), not through its path. */
export interface OpenFolder {
  handle: FileHandle;
  /** Where it is in the workspace (under the real root): for messages and the paths a result shows. */
  path: string;
}

/** The path that reaches `name` inside an open folder (through the folder's fd on Linux). */
export function entryPath(dir: OpenFolder, name: string): string {
  return PROC ? `/proc/self/fd/${dir.handle.fd}/${name}` : join(dir.path, name);
}

/** The path that reads the open folder itself (readdir). */
export function folderPath(dir: OpenFolder): string {
  return PROC ? `/proc/self/fd/${dir.handle.fd}` : dir.path;
}

/** Where an open file or folder really is: the kernel's name for it on Linux, else its path's real path. */
export async function whereOpen(handle: FileHandle, path: string): Promise<string | null> {
  if (PROC) return await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
  return await realpath(path).catch(() => null);
}

/** An open error as the model reads it (a link where a folder or file was checked, a missing file…). */
function refused(err: unknown, shown: string): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return new ToolError(`path is a symlink: ${shown} (never followed)`);
  if (code === 'ENOTDIR') return new ToolError(`not a folder (or a link now) on the path: ${shown}`);
  if (code === 'ENOENT') return new ToolError(`no such file: ${shown}`);
  if (code === 'EEXIST') return new ToolError(`file appeared meanwhile: ${shown}`);
  if (code === 'ENXIO') return new ToolError(`not a regular file: ${shown} (a pipe or socket nobody reads)`);
  // Not the /proc/self/fd path the message of the error names: the model gave `shown`.
  return code ? new ToolError(`cannot open ${shown}: ${code}`) : err;
}

/** The workspace's root folder, open; it must still be the real folder the session pinned. */
async function openRoot(root: string, shown: string): Promise<OpenFolder> {
  await raceHook.beforeOpen?.(root);
  const handle = await open(root, DIR).catch((err) => {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ToolError(`the workspace folder is gone: ${root}`);
    if (code === 'ELOOP' || code === 'ENOTDIR')
      throw new ToolError(`the workspace folder ${root} was replaced by a link: refused (${shown})`);
    throw refused(err, shown);
  });
  if ((await whereOpen(handle, root)) !== root) {
    await handle.close();
    throw new ToolError(`the workspace folder ${root} was moved or replaced: refused (${shown})`);
  }
  return { handle, path: root };
}

/**
 * The folder `name` of an open folder, open and checked (inside the workspace, not a link). `create`: made
 * when missing (one level); a folder made here that turns out to be outside is removed again.
 */
export async function openSubfolder(
  dir: OpenFolder,
  name: string,
  root: string,
  shown: string,
  create = false,
): Promise<OpenFolder> {
  const path = join(dir.path, name);
  await raceHook.beforeOpen?.(path);
  let made = false;
  if (create)
    made = await mkdir(entryPath(dir, name)).then(
      () => true,
      (err) => {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw refused(err, shown);
      },
    );
  const handle = await open(entryPath(dir, name), DIR).catch((err) => {
    throw refused(err, shown);
  });
  const at = await whereOpen(handle, path);
  if (at === null || !within(root, at)) {
    await handle.close();
    // Only an empty folder is removed: what this call made, nothing that was there.
    if (made && at !== null) await rmdir(at).catch(() => {});
    throw new ToolError(`path leads out of the workspace: ${shown}`);
  }
  return { handle, path };
}

/** The folder `abs` (under the root, no link on the way: resolveInside), opened level by level from the root. */
export async function openFolder(
  root: string,
  abs: string,
  shown: string,
  create = false,
): Promise<OpenFolder> {
  if (!within(root, abs)) throw new ToolError(`path leaves the workspace: ${shown}`);
  let dir = await openRoot(root, shown);
  for (const part of relative(root, abs).split(sep)) {
    if (part.length === 0) continue;
    try {
      const next = await openSubfolder(dir, part, root, shown, create);
      await dir.handle.close();
      dir = next;
    } catch (err) {
      await dir.handle.close();
      throw err;
    }
  }
  return dir;
}

/**
 * The file `name` of an open folder, opened with O_NOFOLLOW and checked before anything is read or
 * truncated: a regular file, one link only (a hard link may be a file outside the workspace: its other name
 * is unknowable), inside the workspace. A file this open created (O_CREAT) that is not inside is removed
 * again, by the real path its fd names, and the call fails.
 */
export async function openFileIn(
  dir: OpenFolder,
  name: string,
  flags: number,
  root: string,
  shown: string,
): Promise<FileHandle> {
  const path = join(dir.path, name);
  await raceHook.beforeOpen?.(path);
  // O_NONBLOCK: opening a FIFO otherwise waits for its other end, holding one of libuv's four file threads
  // (four such calls stopped every file operation of the server). It changes nothing for a regular file.
  const nonBlocking = constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const handle = await open(entryPath(dir, name), flags | nonBlocking, 0o666).catch((err) => {
    throw refused(err, shown);
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ToolError(`not a regular file: ${shown}`);
    if (info.nlink > 1)
      throw new ToolError(
        `file has ${info.nlink} hard links: ${shown} (refused: a hard link may lead out of the workspace)`,
      );
    const at = await whereOpen(handle, path);
    if (at === null || !within(root, at)) {
      if (at !== null && (flags & constants.O_CREAT) !== 0) await removeCreated(at, info);
      throw new ToolError(`path leads out of the workspace: ${shown}`);
    }
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Removes the file this call created at `at`, if `at` still names that very file (same device and inode). */
async function removeCreated(at: string, created: Stats): Promise<void> {
  const now = await lstat(at).catch(() => null);
  if (now && now.dev === created.dev && now.ino === created.ino) await unlink(at).catch(() => {});
}
