import { constants, realpathSync } from 'node:fs';
import { type FileHandle, mkdir, open, readlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ToolError } from './define-tool.js';
import { within } from './workspace-path.js';

/** The largest file read_file and search_files read (and what a command's result keeps of its output). */
export const MAX_READ = 256 * 1024;

/**
 * Opening a workspace file for the tools, after insideWorkspace checked the path: O_NOFOLLOW (a link put in
 * place since the check is refused by the kernel), then the open file itself is checked: a regular file,
 * one link only (a hard link may be a file outside the workspace: its other name is unknowable, so a file
 * with nlink > 1 is refused for reads and writes alike), and on Linux the path the kernel actually opened
 * (/proc/self/fd) must be inside the workspace, which also covers a folder swapped for a link meanwhile.
 * A write never truncates before these checks passed.
 */
async function openChecked(
  abs: string,
  workspace: string,
  flags: number,
  shown: string,
): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(abs, flags | constants.O_NOFOLLOW, 0o666);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new ToolError(`path is a symlink: ${shown} (never followed)`);
    if (code === 'ENOENT') throw new ToolError(`no such file: ${shown}`);
    throw err;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ToolError(`not a regular file: ${shown}`);
    if (info.nlink > 1)
      throw new ToolError(
        `file has ${info.nlink} hard links: ${shown} (refused: a hard link may lead out of the workspace)`,
      );
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
    const root = realpathSync(workspace);
    if (!within(root, opened ?? realpathSync(dirname(abs))))
      throw new ToolError(`path leads out of the workspace: ${shown}`);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** A workspace text file's content, at most `maxBytes`. */
export async function readInside(
  abs: string,
  workspace: string,
  shown: string,
  maxBytes: number,
): Promise<string> {
  const handle = await openChecked(abs, workspace, constants.O_RDONLY, shown);
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw new ToolError(`file is larger than ${maxBytes} bytes: ${shown}`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** The content, or null when there is no file (a link or a hard-linked file is still refused). */
export async function readInsideIfExists(abs: string, workspace: string, shown: string, maxBytes: number) {
  try {
    return await readInside(abs, workspace, shown, maxBytes);
  } catch (err) {
    if (err instanceof ToolError && err.message.startsWith('no such file')) return null;
    throw err;
  }
}

/** Writes `content` (creating folders and the file as needed); returns what the file held before, or null. */
export async function writeInside(abs: string, workspace: string, shown: string, content: string) {
  await mkdir(dirname(abs), { recursive: true });
  let handle: FileHandle;
  let existed = true;
  try {
    handle = await openChecked(abs, workspace, constants.O_RDWR, shown);
  } catch (err) {
    if (!(err instanceof ToolError && err.message.startsWith('no such file'))) throw err;
    existed = false;
    handle = await openChecked(
      abs,
      workspace,
      constants.O_RDWR | constants.O_CREAT | constants.O_EXCL,
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
}
