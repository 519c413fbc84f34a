import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureWebBuilt, isWebBuilt, webRoot } from '../../../src/index';

const packageDir = fileURLToPath(new URL('../../..', import.meta.url));

function newestSourceMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds the UI once for all browser test files: rebuilt when a source is newer than the build, with a
 * directory lock so parallel test files do not build over each other.
 */
export async function buildOnce(): Promise<string> {
  const lock = join(packageDir, '.build-lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    const stale =
      !isWebBuilt() ||
      Math.max(
        newestSourceMtime(join(packageDir, 'src')),
        newestSourceMtime(join(packageDir, '../client/src')),
        statSync(join(packageDir, 'index.html')).mtimeMs,
      ) > statSync(join(webRoot, 'index.html')).mtimeMs;
    return await ensureWebBuilt({ force: stale, quiet: true });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
