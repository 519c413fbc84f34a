import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue } from '@agentlane/contract';
import { REDACTED, SecretRedactor } from '@agentlane/engine-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type DefinedTool,
  type ToolContext,
  ToolError,
  type WorkspaceToolOptions,
  workspaceTools,
} from '../src/index';
import { TerminalRedaction } from '../src/terminal-redaction';
import { commandEnv } from '../src/tools/command-env';
import { commandIsolation } from '../src/tools/command-isolation';
import { KILL_GRACE_MS } from '../src/tools/process-group';
import { commandTimeout } from '../src/tools/run-command';
import { dead, hostPid, pidLine } from './fixtures/namespaced-pid';

/** run_command against hostile commands: secrets in the environment, escaping processes, endless output. */
let work: string;
let out: string;
const pids: number[] = [];

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'rt-cmd-'));
  out = await mkdtemp(join(tmpdir(), 'rt-cmd-out-'));
});
afterEach(async () => {
  // Whatever a failing test left running.
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await rm(work, { recursive: true, force: true });
  await rm(out, { recursive: true, force: true });
});

const command = commandTool;

type Result = {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  output: string;
  timeoutCappedAt?: number;
  overflow?: { path: string; bytes: number; sha256: string; shownBytes: number; droppedBytes?: number };
};

function commandTool(options: WorkspaceToolOptions = {}) {
  const tool = workspaceTools({ approveCommands: false, outputDir: out, ...options }).find(
    (t) => t.name === 'run_command',
  ) as DefinedTool;
  const chunks: string[] = [];
  const run = async (input: Record<string, unknown>, over: Partial<ToolContext> = {}) => {
    const ctx: ToolContext = {
      signal: new AbortController().signal,
      workspace: work,
      toolCallId: 'call_c',
      progress: () => {},
      terminal: (c) => {
        chunks.push(c.chunk);
        return true;
      },
      fileChanged: () => {},
      artifact: () => {},
      ask: async () => ({ outcome: 'cancelled' }),
      ...over,
    };
    const started = Date.now();
    const result = (await tool.execute(input as never, ctx)) as JsonValue as unknown as Result;
    return { result, ms: Date.now() - started, terminal: () => chunks.join('') };
  };
  return run;
}

/** What a command wrote with pidLine() to `name` in the workspace (remembered, so a failing test does not leave it). */
async function pidIn(name: string): Promise<string> {
  const written = (await readFile(join(work, name), 'utf8')).trim();
  const pid = hostPid(written);
  if (pid !== undefined) pids.push(pid);
  return written;
}

describe("a command's environment", () => {
  const SECRETS: Record<string, string> = {
    OPENAI_API_KEY: 'sk-openai-leak-1',
    ANTHROPIC_API_KEY: 'sk-ant-leak-2',
    GEMINI_API_KEY: 'gem-leak-3',
    GOOGLE_GENERATIVE_AI_API_KEY: 'goog-leak-4',
    GOOGLE_API_KEY: 'goog-leak-5',
    AGENTLANE_TOKEN: 'al-token-leak-6',
    AGENTLANE_TOKENS: 'al-tokens-leak-7,al-tokens-leak-8',
    SOME_SERVICE_API_KEY: 'svc-leak-9',
    GITHUB_TOKEN: 'ghp-leak-10',
    DEPLOY_SECRET: 'dep-leak-11',
    DB_PASSWORD: 'pw-leak-12',
    AWS_SECRET_ACCESS_KEY: 'aws-leak-13',
    AGENTLANE_DB: 'postgres://agent:pw-leak-14@db/agentlane',
    // Not a secret by its name: the model's key the tool context knows (from the driver's config).
    INNOCENT_LOOKING: 'config-key-leak-15',
  };
  let saved: NodeJS.ProcessEnv;
  beforeEach(() => {
    saved = { ...process.env };
    Object.assign(process.env, SECRETS, { KEEP_ME: 'visible-value' });
  });
  afterEach(() => {
    for (const name of [...Object.keys(SECRETS), 'KEEP_ME']) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it('`env` shows none of the provider keys, server tokens, credentials or known secrets', async () => {
    const { result, terminal } = await command()({ command: 'env' }, { secrets: ['config-key-leak-15'] });
    expect(result.exitCode).toBe(0);
    const shown = terminal();
    expect(shown).toContain('KEEP_ME=visible-value');
    expect(shown).toContain('PATH=');
    for (const value of Object.values(SECRETS)) expect(shown).not.toContain(value.split(',')[0]);
  });

  it('the rule, as a function', () => {
    const env = commandEnv(
      { HOME: '/h', LANG: 'C', MY_TOKEN: 't', x_api_key: 'k', OTHER: 'the-known-secret', URL: 'https://h/p' },
      ['the-known-secret'],
    );
    expect(env).toEqual({ HOME: '/h', LANG: 'C', URL: 'https://h/p' });
  });
});

const isolation = await commandIsolation();
const isolated = isolation.kind !== 'none';
if (!isolated) console.warn(`[run_command] no PID namespace here: ${JSON.stringify(isolation)}`);

describe.each([
  { mode: 'in its own PID namespace', isolateCommands: true },
  { mode: 'without one', isolateCommands: false },
])("a command's processes end with it ($mode)", ({ isolateCommands }) => {
  const command = (options: WorkspaceToolOptions = {}) => commandTool({ isolateCommands, ...options });

  it('a process escaped to its own session (setsid) holding the output pipe does not keep the call', async () => {
    // Escaped for sure and sleeping 60 s: only a call that stops waiting for the pipe ends within the test's time.
    const { result } = await command()({
      // Escaped for sure before the shell exits (a process still in the group when it does is ended).
      command: `setsid sh -c 'echo ${pidLine('$$')} > escaped.pid; exec sleep 60' & while [ ! -s escaped.pid ]; do sleep 0.01; done; echo started`,
    });
    await pidIn('escaped.pid');
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain('started');
  }, 15_000);

  it('a background job is dead once the command returned', async () => {
    const { result } = await command()({
      command: `sleep 60 & echo ${pidLine('$!')} > bg.pid; echo started`,
    });
    expect(result.output).toContain('started');
    expect(dead(await pidIn('bg.pid'))).toBe(true);
  }, 15_000);

  it('so is a nohup job with its output elsewhere (it never held the pipe)', async () => {
    await command()({ command: `nohup sleep 60 > /dev/null 2>&1 & echo ${pidLine('$!')} > nohup.pid` });
    expect(dead(await pidIn('nohup.pid'))).toBe(true);
  }, 15_000);

  it('a job that ignores SIGTERM gets SIGKILL after the grace', async () => {
    const { ms } = await command()({
      command: `sh -c 'trap "" TERM; echo ${pidLine('$$')} > trap.pid; sleep 60; true' > /dev/null 2>&1 & sleep 0.2`,
    });
    expect(dead(await pidIn('trap.pid'))).toBe(true);
    // In a namespace the kernel ends every process left in it when the command's PID 1 exits: no grace.
    if (!isolateCommands || !isolated) expect(ms).toBeGreaterThanOrEqual(KILL_GRACE_MS);
  }, 15_000);

  it('a timeout ends the command and its jobs, a shell that ignores SIGTERM included', async () => {
    const run = command();
    const plain = await run({ command: `sleep 60 & echo ${pidLine('$!')} > t.pid; wait`, timeoutMs: 300 });
    expect(plain.result.timedOut).toBe(true);
    expect(dead(await pidIn('t.pid'))).toBe(true);
    const stubborn = await run({ command: "trap '' TERM; sleep 60; true", timeoutMs: 300 });
    expect(stubborn.result.timedOut).toBe(true);
  }, 20_000);

  it('run.cancel ends the command and its jobs', async () => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    await command()({ command: `sleep 60 & echo ${pidLine('$!')} > c.pid; wait` }, { signal: abort.signal });
    expect(dead(await pidIn('c.pid'))).toBe(true);
  }, 15_000);
});

describe("a command's timeout", () => {
  const options = { approve: false, timeoutMs: 60_000, maxTimeoutMs: 1_800_000 } as never;

  it('is cut to the maximum, and a value that is no positive finite number is refused', () => {
    expect(commandTimeout(undefined, options)).toBe(60_000);
    expect(commandTimeout(5_000, options)).toBe(5_000);
    expect(commandTimeout(2_147_483_647, options)).toBe(1_800_000);
    expect(commandTimeout(1e12, options)).toBe(1_800_000);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '100'])
      expect(() => commandTimeout(bad, options)).toThrow(ToolError);
  });

  it('1e12 ms runs the command (no timer overflow that kills it at once) and says it was cut', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const { result } = await command()({ command: 'sleep 0.1; echo ok', timeoutMs: 1e12 });
      expect(result).toMatchObject({ exitCode: 0, timedOut: false, timeoutCappedAt: 1_800_000 });
      expect(result.output).toBe('ok\n');
      await new Promise((r) => setTimeout(r, 10));
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a negative one is a tool error the model reads', async () => {
    await expect(command()({ command: 'echo no', timeoutMs: -5 })).rejects.toThrow(
      /timeoutMs must be a positive number of milliseconds, at most 1800000/,
    );
  });

  it('the options are checked when the tools are made', () => {
    expect(() => workspaceTools({ commandTimeoutMs: 1e12 })).toThrow(/commandTimeoutMs/);
    expect(() => workspaceTools({ maxCommandTimeoutMs: 0 })).toThrow(/maxCommandTimeoutMs/);
    expect(() => workspaceTools({ commandTimeoutMs: 120_000, maxCommandTimeoutMs: 60_000 })).toThrow(
      /longer/,
    );
    expect(() => workspaceTools({ maxCommandOutputFileBytes: -1 })).toThrow(/maxCommandOutputFileBytes/);
  });
});

describe("a command's output on disk", () => {
  it('is capped: the file keeps its head and tail, says what was dropped, and is what the result names', async () => {
    const total = 3_000_000;
    const { result } = await command({ maxCommandOutputBytes: 1_000, maxCommandOutputFileBytes: 300_000 })({
      command: `head -c ${total} /dev/zero | tr '\\0' a; echo; echo THE-END`,
    });
    const overflow = result.overflow as NonNullable<Result['overflow']>;
    const file = await readFile(overflow.path);
    expect(file.length).toBe(overflow.bytes);
    expect(overflow.bytes).toBeLessThanOrEqual(300_000 + 200);
    expect(createHash('sha256').update(file).digest('hex')).toBe(overflow.sha256);
    const text = file.toString('utf8');
    expect(text.endsWith('a\nTHE-END\n')).toBe(true);
    const line = /\n\[agentlane: (\d+) bytes of output dropped here;[^\n]*\]\n/.exec(text);
    expect(Number(line?.[1])).toBe(overflow.droppedBytes);
    // Shown, kept in the file and dropped add up to what the command printed.
    const kept = file.length - (line?.[0].length ?? 0);
    expect(overflow.shownBytes + kept + (overflow.droppedBytes ?? 0)).toBe(total + 1 + 'THE-END\n'.length);
  });

  it("is redacted as the shown output is, by the context's terminal streams (a key split across the bound whole)", async () => {
    const KEY = 'sk-spill-secret-0123456789abcdef';
    // The context's redaction, as the runtime's tool context gives it: its chunks and its file share streams.
    const terminals = new TerminalRedaction(new SecretRedactor([KEY]));
    const shown: string[] = [];
    const key = `'${KEY.slice(0, 12)}' '${KEY.slice(12)}'`;
    const { result } = await command({ maxCommandOutputBytes: 1_000 })(
      {
        command: `head -c 988 /dev/zero | tr '\\0' a; printf '%s%s' ${key}; printf ' Authorization: Bearer tok_0123456789xyz %s%s\\n' ${key}`,
      },
      {
        terminal: (c) => {
          for (const out of terminals.chunk(c)) shown.push(out.chunk);
          return true;
        },
        terminalFile: (id) => terminals.file(id),
      },
    );
    const overflow = result.overflow as NonNullable<Result['overflow']>;
    const file = await readFile(overflow.path, 'utf8');
    expect(file).toBe(`${REDACTED} Authorization: Bearer ${REDACTED} ${REDACTED}\n`);
    expect(overflow.bytes).toBe(Buffer.byteLength(file));
    expect(shown.join('')).not.toContain(KEY.slice(0, 8));
  });

  it('is redacted without a context that redacts it (made by hand): its secrets and credential headers', async () => {
    const KEY = 'sk-spill-secret-0123456789abcdef';
    const key = `'${KEY.slice(0, 12)}' '${KEY.slice(12)}'`;
    const { result } = await command({ maxCommandOutputBytes: 100 })(
      { command: `head -c 200 /dev/zero | tr '\\0' a; printf ' %s%s x-api-key: abc123456789\\n' ${key}` },
      { secrets: [KEY] },
    );
    const overflow = result.overflow as NonNullable<Result['overflow']>;
    const file = await readFile(overflow.path, 'utf8');
    expect(file).toBe(`${'a'.repeat(100)} ${REDACTED} x-api-key: ${REDACTED}\n`);
  });

  it('under the cap the file is the whole rest, nothing dropped', async () => {
    const { result } = await command({ maxCommandOutputBytes: 1_000 })({
      command: "head -c 50000 /dev/zero | tr '\\0' b",
    });
    const overflow = result.overflow as NonNullable<Result['overflow']>;
    expect(overflow.bytes).toBe(49_000);
    expect(overflow.droppedBytes).toBeUndefined();
  });
});

describe('run_command when the process running it is SIGKILLed', () => {
  it('the command ends with it (a lifeline kills its group)', async () => {
    const { spawn } = await import('node:child_process');
    const harness = spawn(
      process.execPath,
      [
        '--conditions=agentlane-source',
        '--import',
        'tsx',
        join(import.meta.dirname, 'fixtures', 'command-harness.ts'),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const pid = await new Promise<string>((resolve, reject) => {
      harness.stdout.setEncoding('utf8');
      harness.stdout.once('data', (line: string) => resolve(line.trim()));
      harness.once('exit', (code) =>
        reject(new Error(`the harness exited (${code}) before the command ran`)),
      );
    });
    const host = hostPid(pid);
    if (host !== undefined) pids.push(host);
    expect(dead(pid)).toBe(false);
    harness.kill('SIGKILL');
    // Before: the command kept running until it ended by itself, with nobody enforcing its timeout.
    for (let i = 0; i < 250 && !dead(pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect(dead(pid)).toBe(true);
  });
});
