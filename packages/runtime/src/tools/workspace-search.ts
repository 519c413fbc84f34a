import { constants } from 'node:fs';
import { join, relative } from 'node:path';
import { ToolError } from './define-tool.js';
import { type OpenFolder, openFileIn, openFolder, openSubfolder } from './workspace-fd.js';
import { MAX_READ, readFolder, readOpen } from './workspace-files.js';

/** The most matching lines search_files returns. */
const MAX_MATCHES = 200;

/**
 * search_files: lines containing `pattern` in the files under `abs`, walked folder by folder through open
 * folders, each file opened and checked as read_file does. Links are not followed; a folder or file that is
 * refused (a link swapped in, a hard-linked file, one that leads out, one gone meanwhile) is skipped.
 */
export async function searchInside(
  root: string,
  abs: string,
  shown: string,
  pattern: string,
  signal: AbortSignal,
): Promise<string[]> {
  const matches: string[] = [];
  const walk = async (dir: OpenFolder): Promise<void> => {
    for (const e of await readFolder(dir, root, shown)) {
      if (matches.length >= MAX_MATCHES || signal.aborted) return;
      if (e.name === 'node_modules' || e.name === '.git') continue;
      const at = relative(root, join(dir.path, e.name));
      if (e.isDirectory()) {
        const sub = await skipRefused(openSubfolder(dir, e.name, root, at));
        if (!sub) continue;
        try {
          await walk(sub);
        } finally {
          await sub.handle.close();
        }
      } else if (e.isFile()) {
        const text = await skipRefused(readEntry(dir, e.name, root, at));
        for (const [i, line] of (text ?? '').split('\n').entries()) {
          if (matches.length >= MAX_MATCHES) break;
          if (line.includes(pattern)) matches.push(`${at}:${i + 1}: ${line}`);
        }
      }
    }
  };
  const top = await openFolder(root, abs, shown);
  try {
    await walk(top);
  } finally {
    await top.handle.close();
  }
  return matches;
}

async function readEntry(dir: OpenFolder, name: string, root: string, shown: string): Promise<string> {
  const handle = await openFileIn(dir, name, constants.O_RDONLY, root, shown);
  try {
    return await readOpen(handle, shown, MAX_READ);
  } finally {
    await handle.close();
  }
}

/** What a refused or vanished entry gives: null, so the walk goes on without it. */
async function skipRefused<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof ToolError || (err as NodeJS.ErrnoException).code) return null;
    throw err;
  }
}
