import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from '../types';

/**
 * The newcomer's two commands on fresh clones, timed in one run: `npm ci` then `npm start` (to its
 * "listening on" line, twice: the first start builds the packages and the web UI, the second is what every
 * later start costs). The baseline is `npm ci` of the commit before better-sqlite3 was built once and the pinned
 * real engines left the workspaces (`testing/engines/real` got its own lockfile later), cloned and installed
 * in the same run, each with an empty npm cache of its own (a newcomer's machine has none). HEAD is what is
 * committed: uncommitted changes are not measured.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * The install as it was when the issue measured it: the parent of 51767d9 ("better-sqlite3 12.11.1
 * everywhere, so npm ci builds it once"), which also predates ab97a4e ("the pinned real engines have their
 * own lockfile in testing/engines/real").
 */
const baselineCommit = '51767d9^';

function git(args: string[], cwd = root): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function cloneAt(commit: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-install-'));
  git(['clone', '--quiet', '--no-checkout', root, dir]);
  git(['checkout', '--quiet', git(['rev-parse', commit])], dir);
  return dir;
}

interface Timing {
  wall: number;
  /** User + system CPU seconds of npm and every process it waited for (the native builds among them). */
  cpu: number;
}

/**
 * `npm ci` in `dir`, timed by bash's `time` (which counts the CPU of waited-for children: compilers, install
 * scripts); a failed install fails the suite with npm's output.
 */
function timeNpmCi(dir: string): Timing {
  const run = spawnSync(
    'bash',
    // A fresh machine has an empty npm cache: each install gets its own (downloads are part of the cost).
    [
      '-c',
      'TIMEFORMAT="TIMING %R %U %S"; time npm ci --no-audit --no-fund --cache .npm-cache >npm-ci.log 2>&1',
    ],
    { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: '' } },
  );
  const timing = /TIMING ([\d.]+) ([\d.]+) ([\d.]+)/.exec(run.stderr);
  if (run.status !== 0 || !timing) {
    const log = spawnSync('tail', ['-c', '2000', join(dir, 'npm-ci.log')], { encoding: 'utf8' }).stdout;
    throw new Error(`npm ci failed in ${dir} (${run.status}): ${log}${run.stderr}`);
  }
  return { wall: Number(timing[1]), cpu: Number(timing[2]) + Number(timing[3]) };
}

/** Writes back every dirty page, so a timed install does not pay for what ran before it. */
function settleDisk(): void {
  spawnSync('sync');
}

/** Seconds from `npm start` to its "listening on" line; the whole process group is then stopped. */
function timeNpmStart(dir: string): Promise<number> {
  const started = performance.now();
  // The server must not inherit the bench's source condition (it would load .ts files).
  const nodeOptions = (process.env.NODE_OPTIONS ?? '').replace(/--conditions=agentlane-source/g, '').trim();
  const child = spawn('npm', ['start', '--', '--port', '0'], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  });
  const stop = () => {
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      // already gone
    }
  };
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`npm start did not listen within 600 s: ${out.slice(-2000)}`));
    }, 600_000);
    const onData = (d: Buffer) => {
      out += d;
      if (!/listening on http/.test(out)) return;
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      child.once('exit', () => resolve(seconds));
      stop();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      if (/listening on http/.test(out)) return;
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before listening: ${out.slice(-2000)}`));
    });
  });
}

export async function run(): Promise<BenchResult[]> {
  const head = cloneAt('HEAD');
  const base = cloneAt(baselineCommit);
  try {
    // Both clones stay until the end, and the disk settles (sync) before each install: deleting the first
    // install's tree between the two (a gigabyte, on a disk mounted with `discard`) slowed the second by a
    // third, and so did the first install's pages still being written back.
    settleDisk();
    const baseCi = timeNpmCi(base);
    settleDisk();
    const headCi = timeNpmCi(head);
    const firstStart = await timeNpmStart(head);
    const laterStart = await timeNpmStart(head);
    const rev = git(['rev-parse', '--short', 'HEAD']);
    const load = loadavg()[0]!.toFixed(1);
    return [
      {
        name: 'install: npm ci on a fresh clone (wall)',
        unit: 's',
        value: Number(headCi.wall.toFixed(1)),
        ratio: baseCi.wall / headCi.wall,
        extra: `HEAD ${rev}; baseline ${baselineCommit} (better-sqlite3 built twice, every pinned real engine in the workspace install): ${baseCi.wall.toFixed(1)} s, each with an empty npm cache, same run, load average ${load} (target: at most half, ratio >= 2)`,
      },
      {
        name: 'install: npm ci on a fresh clone (CPU of npm and its children)',
        unit: 's',
        value: Number(headCi.cpu.toFixed(1)),
        ratio: baseCi.cpu / headCi.cpu,
        extra: `baseline ${baseCi.cpu.toFixed(1)} s: what a busy machine does not change (native builds, unpacking)`,
      },
      {
        name: 'install: npm start to listening, first start on a fresh clone',
        unit: 's',
        value: Number(firstStart.toFixed(1)),
        extra: 'builds the packages (tsc -b) and the web UI (vite build), then serves on SQLite',
      },
      {
        name: 'install: npm start to listening, later starts',
        unit: 's',
        value: Number(laterStart.toFixed(1)),
        extra: `tsc -b finds nothing to do, the UI is built; npm ci + first start = ${(headCi.wall + firstStart).toFixed(1)} s`,
      },
    ];
  } finally {
    rmSync(head, { recursive: true, force: true });
    rmSync(base, { recursive: true, force: true });
  }
}
