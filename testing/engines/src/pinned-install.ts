import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A folder with its own package.json and lockfile outside the npm workspaces (the pinned real engines, the
 * benchmarks' baselines): the project's `npm ci` never downloads what is in it; whoever needs it installs it
 * here with `npm ci` on first use.
 */
export interface PinnedFolder {
  dir: string;
  /** What the folder holds, for messages ("the pinned real engines"). */
  label: string;
  /** Extra `npm ci` arguments (e.g. `--ignore-scripts`). */
  npmArgs?: readonly string[];
  /** An environment variable that, set to `skip`, never installs (the caller then skips what needs it). */
  skipEnv?: string;
}

/** An install older than this left its lock behind (killed): the next caller takes over. */
const staleLockMs = 15 * 60_000;

const outcomes = new Map<string, string | null>();

/**
 * Installs the folder (`npm ci` in it) unless what is there was installed from its current lockfile; returns
 * null when it is there, or why not. Test files run in parallel processes, so one installs while the others
 * wait on its lock directory (`.installing`, which .gitignore lists).
 */
export function ensurePinnedFolder(folder: PinnedFolder): string | null {
  let outcome = outcomes.get(folder.dir);
  if (outcome === undefined) {
    outcome = install(folder);
    outcomes.set(folder.dir, outcome);
  }
  return outcome;
}

function lockfileHash(dir: string): string {
  return createHash('sha256')
    .update(readFileSync(join(dir, 'package-lock.json')))
    .digest('hex');
}

function installed(dir: string): boolean {
  const stamp = join(dir, 'node_modules', '.agentlane-installed');
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === lockfileHash(dir);
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function install({ dir, label, npmArgs = [], skipEnv }: PinnedFolder): string | null {
  if (installed(dir)) return null;
  if (skipEnv && process.env[skipEnv] === 'skip')
    return `${label} are not installed in ${dir} (${skipEnv}=skip)`;
  const lockDir = join(dir, '.installing');
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (installed(dir)) return null;
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
    if (installed(dir)) return null;
    console.log(`installing ${label}: npm ci in ${dir} (first use)…`);
    const started = Date.now();
    const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error', ...npmArgs], {
      cwd: dir,
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: staleLockMs,
    });
    if (result.status !== 0)
      return `npm ci in ${dir} failed (${result.error?.message ?? `exit ${result.status}`})`;
    writeFileSync(join(dir, 'node_modules', '.agentlane-installed'), lockfileHash(dir));
    console.log(`installed ${label} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    return null;
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
