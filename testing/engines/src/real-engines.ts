import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The pinned real engines live in testing/engines/real, a folder with its own package.json and lockfile
 * outside the npm workspaces: the project's `npm ci` never downloads them (they were most of its time);
 * `.ci/run` and the first engine test that needs them install them there with `npm ci`.
 */
export const realEnginesDir = fileURLToPath(new URL('../real/', import.meta.url));

const stampPath = join(realEnginesDir, 'node_modules', '.agentlane-installed');
const lockDir = join(realEnginesDir, '.installing');
/** An install older than this left its lock behind (killed): the next test takes over. */
const staleLockMs = 15 * 60_000;

function lockfileHash(): string {
  return createHash('sha256')
    .update(readFileSync(join(realEnginesDir, 'package-lock.json')))
    .digest('hex');
}

function installed(): boolean {
  return existsSync(stampPath) && readFileSync(stampPath, 'utf8') === lockfileHash();
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

let outcome: string | null | undefined;

/**
 * Installs the pinned engines (`npm ci` in testing/engines/real) unless what is there was installed from
 * the current lockfile; returns null when they are there, or why not. Test files run in parallel
 * processes, so one installs while the others wait on its lock directory. AGENTLANE_REAL_ENGINES=skip
 * never installs (the engine tests are then skipped, or fail under CI=true).
 */
export function ensureRealEngines(): string | null {
  if (outcome !== undefined) return outcome;
  outcome = install();
  return outcome;
}

function install(): string | null {
  if (installed()) return null;
  if (process.env.AGENTLANE_REAL_ENGINES === 'skip')
    return 'the pinned engines are not installed in testing/engines/real (AGENTLANE_REAL_ENGINES=skip)';
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (installed()) return null;
      let age = 0;
      try {
        age = Date.now() - statSync(lockDir).mtimeMs;
      } catch {
        continue; // released just now
      }
      if (age > staleLockMs) rmSync(lockDir, { recursive: true, force: true });
      else sleep(500);
    }
  }
  try {
    if (installed()) return null;
    console.log(
      'installing the pinned real engines: npm ci in testing/engines/real (first engine test run)…',
    );
    const started = Date.now();
    const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: realEnginesDir,
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: staleLockMs,
    });
    if (result.status !== 0)
      return `npm ci in testing/engines/real failed (${result.error?.message ?? `exit ${result.status}`})`;
    writeFileSync(stampPath, lockfileHash());
    console.log(`installed the pinned real engines in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    return null;
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
