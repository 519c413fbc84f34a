import { type ChildProcess, spawn } from 'node:child_process';

export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

export interface OwnedProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves once, when the process has exited. */
  readonly exited: Promise<ProcessExit>;
  /** The exit, once known. */
  exit(): ProcessExit | undefined;
  /** The last few KB of stderr, for the error that says why an engine died. */
  stderrTail(): string;
  /**
   * SIGTERM to the whole process group, SIGKILL after `graceMs`; then SIGKILL to what is left of the group
   * (children that outlived the engine). Resolves when the engine is gone. The group is signalled even when
   * the engine itself already exited, and only then is the lifeline stopped.
   */
  kill(graceMs?: number): Promise<ProcessExit>;
}

export interface SpawnOwnedOptions {
  cwd: string;
  env: Record<string, string>;
  /** Bytes of stderr kept (default 8 KB). */
  stderrBytes?: number;
  /** Receives every stderr chunk (e.g. for a debug log). */
  onStderr?(chunk: string): void;
}

const live = new Set<OwnedProcess>();
let exitHookInstalled = false;

/** Kills every owned process group when this process exits, so engines never outlive the harness. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    // Never the bare pid of an engine that already exited: the system may have given it to someone else.
    for (const owned of live) killGroup(owned.pid, 'SIGKILL', owned.exit() !== undefined);
  });
}

/** Signals the process group led by `pid` (or the process alone where there is no group); `groupOnly` never the pid. */
function killGroup(pid: number, signal: NodeJS.Signals, groupOnly = false): void {
  try {
    process.kill(-pid, signal);
  } catch {
    if (groupOnly) return;
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * The shell of a lifeline: reads its stdin until end of file, then kills the process group named by its
 * first argument (`kill -9 -PGID`: dash's kill takes no `--`). Its stdin is a pipe only this process holds.
 */
const LIFELINE_SCRIPT = 'while read -r _; do :; done; kill -9 "-$1" 2>/dev/null';

/**
 * Kills an engine's process group when this process dies, however it dies. The exit hook above does not run
 * on SIGKILL or a crash of the runtime; engines that exit at the end of their stdin go by themselves then,
 * but not all do (Claude Code's ACP adapter stayed behind every crash of the server, with its CLI). The
 * lifeline is a small `sh` in a group of its own, holding the read end of a pipe: when this process is gone
 * the pipe closes and the shell kills the group. When the engine exits first the lifeline is killed, so it
 * never signals a group id the system has given to someone else. Not on Windows (no process groups).
 */
export function startLifeline(pgid: number): (() => void) | undefined {
  if (process.platform === 'win32' || pgid <= 0) return undefined;
  try {
    const lifeline = spawn('/bin/sh', ['-c', LIFELINE_SCRIPT, 'agentlane-lifeline', String(pgid)], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
      // Only builtins run: no variable of this process (its keys) is in the shell's environment block.
      env: {},
    });
    lifeline.on('error', () => undefined);
    lifeline.stdin?.on('error', () => undefined);
    // Neither the shell nor its pipe keeps this process's event loop alive.
    lifeline.unref();
    (lifeline.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    return () => {
      lifeline.kill('SIGKILL');
      lifeline.stdin?.destroy();
    };
  } catch {
    return undefined;
  }
}

/**
 * Spawns an engine in its own process group (engines start their own children: Claude Code's CLI,
 * MCP servers, shells), with stdio piped, and owns it: stderr is kept as a bounded tail, `kill`
 * takes down the whole group, and so does this process's death (the exit hook, or the lifeline).
 */
export function spawnOwned(command: string, args: string[], options: SpawnOwnedOptions): OwnedProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid === undefined) {
    // spawn failed synchronously (ENOENT is reported through 'error'); keep a handle that reports it.
  }
  const limit = options.stderrBytes ?? 8192;
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-limit);
    options.onStderr?.(chunk);
  });
  let exitInfo: ProcessExit | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
    });
    child.once('error', (error) => {
      tail = `${tail}${String(error)}\n`.slice(-limit);
      exitInfo ??= { code: null, signal: null };
      resolve(exitInfo);
    });
  });
  const owned: OwnedProcess = {
    child,
    pid: child.pid ?? -1,
    exited,
    exit: () => exitInfo,
    stderrTail: () => tail,
    async kill(graceMs = 2000) {
      if (released) return exited;
      if (!exitInfo) {
        if (owned.pid > 0) killGroup(owned.pid, 'SIGTERM');
        const timer = setTimeout(() => {
          if (owned.pid > 0) killGroup(owned.pid, 'SIGKILL');
        }, graceMs);
        await exited;
        clearTimeout(timer);
      }
      // The engine is gone; its children may not be (an engine that exited mid-turn leaves its shells).
      release();
      return exited;
    },
  };
  // Until kill() has signalled the group, the group stays in `live` (the exit hook kills it) and keeps its
  // lifeline, even after the engine itself exited: the group may outlive its leader.
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    if (owned.pid > 0) killGroup(owned.pid, 'SIGKILL', true);
    live.delete(owned);
    stopLifeline?.();
  };
  live.add(owned);
  installExitHook();
  const stopLifeline = startLifeline(owned.pid);
  return owned;
}
