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
  /** SIGTERM to the whole process group, SIGKILL after `graceMs`. Resolves when it is gone. */
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
    for (const owned of live) killGroup(owned.pid, 'SIGKILL');
  });
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Spawns an engine in its own process group (engines start their own children: Claude Code's CLI,
 * MCP servers, shells), with stdio piped, and owns it: stderr is kept as a bounded tail, and `kill`
 * takes down the whole group.
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
      if (exitInfo) return exitInfo;
      if (owned.pid > 0) killGroup(owned.pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (owned.pid > 0) killGroup(owned.pid, 'SIGKILL');
      }, graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  live.add(owned);
  installExitHook();
  void exited.then(() => live.delete(owned));
  return owned;
}
