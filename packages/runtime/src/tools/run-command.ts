import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { JsonValue } from '@agentlane/contract';
import { startLifeline } from '@agentlane/engine-kit';
import { Type } from 'typebox';
import { terminalRedactor } from '../redact.js';
import { TerminalRedaction } from '../terminal-redaction.js';
import { commandEnv } from './command-env.js';
import {
  type CommandIsolation,
  type CommandNetwork,
  commandExit,
  commandIsolation,
  isolatedShell,
} from './command-isolation.js';
import { defineTool, type ToolContext, ToolError } from './define-tool.js';
import { OutputSpool } from './output-spool.js';
import { endGroup, KILL_GRACE_MS, signalGroup } from './process-group.js';
import { MAX_READ } from './workspace-files.js';
import { workspaceRoot } from './workspace-path.js';

export interface RunCommandOptions {
  /** Commands ask first. */
  approve: boolean;
  /** Default command timeout. */
  timeoutMs: number;
  /** The most a call's own `timeoutMs` may ask for (a longer one is cut to it). */
  maxTimeoutMs: number;
  /** Bytes of a command's output shown as terminal.output; the rest goes to a file in `outputDir`. */
  outputBound: number;
  /** The most that file keeps (its head and its tail; what is between is dropped and counted). */
  outputFileBound: number;
  outputDir: string;
  /** Run commands in a PID namespace of their own where the machine allows it (command-isolation.ts). */
  isolate: boolean;
  /** The network a command has (command-isolation.ts, CommandNetwork). */
  network: CommandNetwork;
}

/** The longest a timer may run in Node (a longer one fires at once, with a TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2_147_483_647;
/** After the shell exited: how long output still coming is read before the pipes are closed. */
const DRAIN_MS = 200;
/** …and at most, however much keeps coming (a process that left the group may write forever). */
const DRAIN_MAX_MS = 2_000;
/** After SIGKILL: how long to wait for the shell's exit before returning without it. */
const EXIT_WAIT_MS = 2_000;
const NOT_ISOLATED: CommandIsolation = { kind: 'none', reason: 'isolateCommands is false' };

/**
 * The timeout of one call: the model's `timeoutMs` (the schema asks for an integer ≥ 1, but a tool may be run
 * without it), cut to `maxTimeoutMs`; a value that is no positive finite number is refused.
 */
export function commandTimeout(asked: unknown, options: RunCommandOptions): number {
  if (asked === undefined) return options.timeoutMs;
  if (typeof asked !== 'number' || !Number.isFinite(asked) || asked <= 0)
    throw new ToolError(
      `timeoutMs must be a positive number of milliseconds, at most ${options.maxTimeoutMs} (got ${String(asked)})`,
    );
  return Math.min(Math.ceil(asked), options.maxTimeoutMs);
}

/**
 * run_command: a shell command in the workspace, its output streamed as terminal output (bounded), its
 * environment without the server's secrets (command-env.ts). The command is over when its shell exits:
 * output still in the pipes is read for a moment, then the pipes are closed and what is left of its process
 * group is ended (process-group.ts) — background jobs end with their command, and a process that escaped to
 * a session of its own can no longer hold the call open. A timeout or run.cancel ends the group the same
 * way (SIGTERM, then SIGKILL).
 */
export function runCommandTool(options: RunCommandOptions) {
  return defineTool<{ command: string; timeoutMs?: number }>({
    name: 'run_command',
    description: 'Run a shell command in the workspace; returns its exit code and output.',
    kind: 'execute',
    // The maximum is enforced in code (commandTimeout), not here: the schema is what every recorded request
    // declares to the model.
    inputSchema: Type.Object({
      command: Type.String({ minLength: 1 }),
      timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
    }),
    needsApproval: options.approve
      ? ({ command }) => ({ title: `Run ${command}`, subject: { kind: 'command', command } })
      : false,
    execute: (input, ctx) => executeCommand(options, input, ctx),
  });
}

/** The file takes what is past the bound: reading stops while it catches up, so nothing piles up in memory. */
function pauseWhileSpooling(
  child: ChildProcessByStdio<null, Readable, Readable>,
  overflow: OutputSpool,
): void {
  if (!overflow.busy()) return;
  child.stdout.pause();
  child.stderr.pause();
  void overflow.drained().then(() => {
    child.stdout.resume();
    child.stderr.resume();
  });
}

/**
 * Resolves once the pipes closed, or nothing new arrived for DRAIN_MS (and the spool is idle), or after
 * DRAIN_MAX_MS: a process that left the group may hold the pipes open for ever.
 */
function quietOrClosed(
  child: ChildProcessByStdio<null, Readable, Readable>,
  received: () => number,
  busy: () => boolean,
  closed: () => boolean,
): Promise<void> {
  return new Promise<void>((done) => {
    const started = Date.now();
    let seen = received();
    const tick = () => {
      const quiet = received() === seen && !busy();
      if (closed() || quiet || Date.now() - started >= DRAIN_MAX_MS) return done();
      seen = received();
      setTimeout(tick, DRAIN_MS);
    };
    if (closed()) done();
    else {
      child.once('close', () => done());
      setTimeout(tick, DRAIN_MS);
    }
  });
}

/**
 * Timeout and cancel: SIGTERM to the group, SIGKILL after the grace; `giveUp` once more time passed (a shell
 * that does not exit even then, stuck in the kernel: the call ends without its exit).
 */
function stopper(pgid: number | undefined, timers: NodeJS.Timeout[], giveUp: () => void): () => void {
  let stopping = false;
  return () => {
    if (stopping || pgid === undefined) return;
    stopping = true;
    signalGroup(pgid, 'SIGTERM');
    timers.push(setTimeout(() => signalGroup(pgid, 'SIGKILL'), KILL_GRACE_MS));
    timers.push(setTimeout(giveUp, KILL_GRACE_MS + EXIT_WAIT_MS));
  };
}

/**
 * Where output past the bound goes. The file becomes an artifact stored as it is: it is redacted as the
 * terminal's chunks are, by the same streams (a context made by hand: by a redaction of its own).
 */
function overflowSpool(options: RunCommandOptions, ctx: ToolContext, terminalId: string): OutputSpool {
  return new OutputSpool(
    options.outputDir,
    ctx.toolCallId,
    options.outputBound,
    true,
    options.outputFileBound,
    ctx.terminalFile?.(terminalId) ??
      new TerminalRedaction(terminalRedactor(ctx.secrets ?? [])).file(terminalId),
  );
}

/** The overflow file becomes an artifact the server serves; the result names it. */
function spilledResult(
  ctx: ToolContext,
  command: string,
  spilled: Awaited<ReturnType<OutputSpool['close']>>,
): Record<string, JsonValue> {
  if (!spilled) return {};
  ctx.artifact({
    name: `output of ${command}`.slice(0, 200),
    contentType: 'text/plain; charset=utf-8',
    file: spilled,
    description: `command output past the first ${spilled.shownBytes} bytes`,
  });
  return { overflow: { ...spilled, artifactId: `sha256-${spilled.sha256}` } };
}

async function executeCommand(
  options: RunCommandOptions,
  { command, timeoutMs }: { command: string; timeoutMs?: number },
  ctx: ToolContext,
): Promise<JsonValue> {
  const limit = commandTimeout(timeoutMs, options);
  const cwd = workspaceRoot(ctx);
  const { argv, isolation } = await shellFor(command, options);
  return await new Promise((resolvePromise, rejectPromise) => {
    const terminalId = `term-${ctx.toolCallId}`;
    const child = spawnShell(argv, cwd, ctx.secrets);
    const pgid = child.pid;
    // The command's group dies with this process however it dies (SIGKILL too): nobody would end it then.
    const cutLifeline = pgid !== undefined ? startLifeline(pgid) : undefined;
    let output = '';
    let timedOut = false;
    let received = 0;
    let exited = false;
    let closed = false;
    const timers: NodeJS.Timeout[] = [];
    const overflow = overflowSpool(options, ctx, terminalId);
    // Timeout and cancel: SIGTERM to the group, SIGKILL after the grace; the shell's exit ends the call.
    const stop = stopper(pgid, timers, () => {
      if (!exited) void finish(null, 'SIGKILL');
    });
    timers.push(
      setTimeout(() => {
        timedOut = true;
        stop();
      }, limit),
    );
    ctx.signal.addEventListener('abort', stop, { once: true });
    if (ctx.signal.aborted) stop();
    const pipe = (stream: 'stdout' | 'stderr') => (data: Buffer) => {
      received += data.length;
      const shown = overflow.take(
        data,
        (chunk) => ctx.terminal({ terminalId, stream, chunk, command }),
        stream,
      );
      if (output.length < MAX_READ && shown.length > 0) output += shown.toString('utf8');
      pauseWhileSpooling(child, overflow);
    };
    child.stdout.on('data', pipe('stdout'));
    child.stderr.on('data', pipe('stderr'));
    child.on('close', () => {
      closed = true;
    });
    // Output still coming after the shell exited: read while it comes (DRAIN_MS without any ends it).
    const drain = () =>
      quietOrClosed(
        child,
        () => received,
        () => overflow.busy(),
        () => closed,
      );
    let finished = false;
    const finish = async (code: number | null, signal: NodeJS.Signals | null) => {
      if (finished) return;
      finished = true;
      for (const t of timers) clearTimeout(t);
      ctx.signal.removeEventListener('abort', stop);
      // A process that left the group may still hold the pipes: they are closed, not waited for.
      child.stdout.destroy();
      child.stderr.destroy();
      if (pgid !== undefined) await endGroup(pgid);
      cutLifeline?.();
      const spilled = await overflow.close();
      const exit = commandExit(code, signal, timedOut || ctx.signal.aborted, isolation);
      ctx.terminal({ terminalId, stream: 'stdout', chunk: '', command, exit });
      resolvePromise({
        exitCode: exit.code,
        signal: exit.signal,
        timedOut,
        output: output.slice(0, 16_384),
        ...spilledResult(ctx, command, spilled),
        ...(timeoutMs !== undefined && limit < timeoutMs ? { timeoutCappedAt: limit } : {}),
      });
    };
    child.on('exit', (code, signal) => {
      exited = true;
      // Background jobs end with their command: the group is told now, so their pipes close soon.
      if (pgid !== undefined) signalGroup(pgid, 'SIGTERM');
      void drain().then(() => finish(code, signal));
    });
    child.on('error', (err) => {
      // The shell could not be started (no pid, no exit event to wait for).
      if (exited || finished || pgid !== undefined) return;
      finished = true;
      for (const t of timers) clearTimeout(t);
      ctx.signal.removeEventListener('abort', stop);
      rejectPromise(new ToolError(`the command could not be started: ${err.message}`));
    });
  });
}

/** The command's argv in the isolation asked for; a tool error when it asks for what this machine cannot give. */
async function shellFor(command: string, options: RunCommandOptions) {
  const isolation = options.isolate ? await commandIsolation() : NOT_ISOLATED;
  const argv = isolatedShell(command, isolation, options.network);
  if (!argv)
    throw new ToolError(
      `commands are to run without a network, which needs a namespace this machine does not give (${isolation.kind === 'none' ? isolation.reason : ''})`,
    );
  return { argv, isolation };
}

/**
 * `sh -c command` in its own session and process group (the group is what ends with the command), in its own
 * PID namespace where the machine allows it.
 */
function spawnShell([bin, args]: [string, string[]], cwd: string, secrets: readonly string[] | undefined) {
  return spawn(bin, args, {
    cwd,
    env: commandEnv(process.env, secrets),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}
