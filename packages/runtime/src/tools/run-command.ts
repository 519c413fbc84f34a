import { spawn } from 'node:child_process';
import { Type } from 'typebox';
import { defineTool } from './define-tool.js';
import { OutputSpool } from './output-spool.js';
import { MAX_READ } from './workspace-files.js';

export interface RunCommandOptions {
  /** Commands ask first. */
  approve: boolean;
  /** Default command timeout. */
  timeoutMs: number;
  /** Bytes of a command's output shown as terminal.output; the rest goes to a file in `outputDir`. */
  outputBound: number;
  outputDir: string;
}

/** run_command: a shell command in the workspace, its output streamed as terminal output (bounded). */
export function runCommandTool(options: RunCommandOptions) {
  return defineTool<{ command: string; timeoutMs?: number }>({
    name: 'run_command',
    description: 'Run a shell command in the workspace; returns its exit code and output.',
    kind: 'execute',
    inputSchema: Type.Object({
      command: Type.String({ minLength: 1 }),
      timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
    }),
    needsApproval: options.approve
      ? ({ command }) => ({ title: `Run ${command}`, subject: { kind: 'command', command } })
      : false,
    execute({ command, timeoutMs }, ctx) {
      return new Promise((resolvePromise) => {
        const terminalId = `term-${ctx.toolCallId}`;
        const child = spawn('sh', ['-c', command], {
          cwd: ctx.workspace,
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        });
        let output = '';
        let timedOut = false;
        const overflow = new OutputSpool(options.outputDir, ctx.toolCallId, options.outputBound);
        const kill = () => {
          try {
            if (child.pid) process.kill(-child.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        };
        const timer = setTimeout(() => {
          timedOut = true;
          kill();
        }, timeoutMs ?? options.timeoutMs);
        ctx.signal.addEventListener('abort', kill, { once: true });
        const pipe = (stream: 'stdout' | 'stderr') => (data: Buffer) => {
          const shown = overflow.take(data, (chunk) => ctx.terminal({ terminalId, stream, chunk, command }));
          if (output.length < MAX_READ && shown.length > 0) output += shown.toString('utf8');
          // The file takes the rest: stop reading while it catches up, so nothing piles up in memory.
          if (overflow.busy()) {
            child.stdout.pause();
            child.stderr.pause();
            void overflow.drained().then(() => {
              child.stdout.resume();
              child.stderr.resume();
            });
          }
        };
        child.stdout.on('data', pipe('stdout'));
        child.stderr.on('data', pipe('stderr'));
        child.on('close', async (code, signal) => {
          clearTimeout(timer);
          ctx.signal.removeEventListener('abort', kill);
          const spilled = await overflow.close();
          ctx.terminal({ terminalId, stream: 'stdout', chunk: '', command, exit: { code, signal } });
          // The overflow file becomes an artifact the server serves; the result names it.
          if (spilled)
            ctx.artifact({
              name: `output of ${command}`.slice(0, 200),
              contentType: 'text/plain; charset=utf-8',
              file: spilled,
              description: `command output past the first ${spilled.shownBytes} bytes`,
            });
          resolvePromise({
            exitCode: code,
            signal,
            timedOut,
            output: output.slice(0, 16_384),
            ...(spilled ? { overflow: { ...spilled, artifactId: `sha256-${spilled.sha256}` } } : {}),
          });
        });
      });
    },
  });
}
