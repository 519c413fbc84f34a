import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/**
 * A command's processes: the shell is spawned detached, so it leads a process group of its own that every
 * process it starts joins (background jobs, `nohup` included). When the command ends — its shell exited, it
 * timed out or the run was cancelled — the whole group is sent SIGTERM, then SIGKILL after a short grace, so
 * nothing it started outlives it. A process that leaves the group for a session of its own (`setsid`) is
 * not tracked; it no longer holds the command either (run-command.ts stops reading its pipes).
 */

/** SIGTERM → SIGKILL. */
export const KILL_GRACE_MS = 500;
/** How long to wait for the group to be gone after SIGKILL before giving up on it. */
const GONE_WAIT_MS = 1_000;
const POLL_MS = 20;

/** Signals the group; false when no process of it is left (or none may be signalled). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

const PROC = existsSync('/proc');

/**
 * Whether a live process is left in the group. kill(-pgid, 0) counts zombies too, and an orphan whose new
 * parent does not reap it (a container's PID 1 that is no init) stays a zombie for good: on Linux the group's
 * members are looked up in /proc and zombies do not count.
 */
export async function groupAlive(pgid: number): Promise<boolean> {
  if (!signalGroup(pgid, 0)) return false;
  if (!PROC) return true;
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((n) => /^\d+$/.test(n));
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (pgrp === String(pgid) && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

async function goneWithin(pgid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (!(await groupAlive(pgid))) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Ends what is left of the group: SIGTERM, SIGKILL after KILL_GRACE_MS; resolves when it is gone (bounded). */
export async function endGroup(pgid: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  if (await goneWithin(pgid, KILL_GRACE_MS)) return;
  signalGroup(pgid, 'SIGKILL');
  await goneWithin(pgid, GONE_WAIT_MS);
}
