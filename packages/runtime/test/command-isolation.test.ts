import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { JsonValue } from '@agentlane/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workspaceTools } from '../src/index';
import { commandExit, commandIsolation } from '../src/tools/command-isolation';
import { commandToolIn, quietContext } from './fixtures/command-tool';
import { dead, pidLine } from './fixtures/namespaced-pid';

const isolation = await commandIsolation();
// Linux machines with user namespaces run these; elsewhere they are skipped, saying why (CI's machine has them).
if (isolation.kind === 'none') {
  if (process.env.CI === 'true')
    throw new Error(`commands cannot be isolated under CI=true: ${isolation.reason}`);
  console.warn(`[run_command] skipping the namespace tests: ${isolation.reason}`);
}
const KEY = 'sk-isolation-probe-0123456789abcdef';

describe.skipIf(isolation.kind === 'none')('a command in its own PID namespace', () => {
  let work: string;
  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'rt-iso-'));
  });
  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it("cannot read the server's environment block, nor any other process's, even after unmounting its /proc (the probes' base64 of the key)", async () => {
    // The server's process is started with the key in its environment, as `OPENAI_API_KEY=… agentlane serve`.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--conditions=agentlane-source',
        '--import',
        'tsx',
        join(import.meta.dirname, 'fixtures', 'command-once.ts'),
        [
          // As root out here it kept CAP_SYS_ADMIN and unmounted its /proc, showing the machine's (a probe).
          'umount -l /proc 2>/dev/null; umount /proc 2>/dev/null',
          'echo "processes: $(ls -d /proc/[0-9]* | wc -l)"',
          'grep CapEff /proc/self/status',
          'tr "\\0" "\\n" < /proc/$PPID/environ | base64 -w0; echo',
          // Every process's block it can see, searched in there (the output keeps only its first 16 KB).
          `for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < $f; done | grep -c ${KEY} || true`,
        ].join('; '),
      ],
      { env: { ...process.env, OPENAI_API_KEY: KEY }, timeout: 20_000 },
    );
    const result = JSON.parse(stdout) as { exitCode: number; output: string };
    const decoded = result.output
      .split('\n')
      .map((line) => Buffer.from(line, 'base64').toString('utf8'))
      .join('\n');
    expect(result.output).toContain('processes: ');
    expect(result.output).toMatch(/CapEff:\s*0+\n/);
    expect(result.output.trim().split('\n').pop()).toBe('0');
    expect(decoded).not.toContain(KEY);
    expect(result.output).not.toContain(KEY);
    // The shell, its init, `ls`, `wc` and the subshell: a handful, not the machine's processes.
    expect(Number(/processes: (\d+)/.exec(result.output)?.[1])).toBeLessThan(10);
  }, 30_000);

  it("is found out here while it runs (the tests' pid lookup is not vacuous), and is gone after", async () => {
    const tool = commandToolIn(work);
    const ctx = quietContext(work, 'call_iso');
    const running = tool.execute(
      {
        command: `sleep 30 & echo ${pidLine('$!')} > live.pid; while [ ! -e go ]; do sleep 0.02; done; echo done`,
      } as never,
      ctx,
    ) as Promise<JsonValue>;
    while (!existsSync(join(work, 'live.pid'))) await new Promise((r) => setTimeout(r, 20));
    const written = await readFile(join(work, 'live.pid'), 'utf8');
    expect(written.trim()).toMatch(/^\d+ pid:\[\d+\]$/);
    expect(dead(written)).toBe(false);
    await writeFile(join(work, 'go'), '');
    expect(await running).toMatchObject({ exitCode: 0, output: 'done\n' });
    expect(dead(written)).toBe(true);
  }, 30_000);
});

describe.skipIf(isolation.kind === 'none')("a command's network", () => {
  let work: string;
  let server: Server;
  let port: number;
  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'rt-net-'));
    // What the command would reach: a server of this process on loopback, as the API is in loopback mode.
    server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    await new Promise((r) => server.close(r));
    await rm(work, { recursive: true, force: true });
  });

  const connect = () =>
    `${process.execPath} -e "require('node:http').get('http://127.0.0.1:${port}/', (r) => r.on('data', (d) => console.log(String(d)))).on('error', (e) => console.log('error ' + e.code))"`;

  it("is the server's by default: it reaches a server on 127.0.0.1", async () => {
    const result = (await commandToolIn(work).execute(
      { command: connect() } as never,
      quietContext(work, 'n1'),
    )) as {
      output: string;
    };
    expect(result.output).toContain('reached');
  }, 20_000);

  it("none: not even loopback, so not the server's own API", async () => {
    const tool = commandToolIn(work, { commandNetwork: 'none' });
    const result = (await tool.execute({ command: connect() } as never, quietContext(work, 'n2'))) as {
      output: string;
    };
    expect(result.output).not.toContain('reached');
    expect(result.output).toMatch(/error E[A-Z]+/);
  }, 20_000);

  it('none needs the namespace: refused with isolateCommands false', () => {
    expect(() => workspaceTools({ commandNetwork: 'none', isolateCommands: false })).toThrow(
      /isolateCommands/,
    );
    expect(() => workspaceTools({ commandNetwork: 'off' as never })).toThrow(/commandNetwork/);
  });
});

describe('the end of a command, as reported', () => {
  const ns = { kind: 'pid-namespace', prefix: ['unshare'] } as const;
  it("is the signal when the server stopped it (PID 1 reports the shell's 128 + n)", () => {
    expect(commandExit(143, null, true, ns)).toEqual({ code: null, signal: 'SIGTERM' });
    expect(commandExit(137, null, true, ns)).toEqual({ code: null, signal: 'SIGKILL' });
  });
  it('is the exit status otherwise, and always without isolation', () => {
    expect(commandExit(143, null, false, ns)).toEqual({ code: 143, signal: null });
    expect(commandExit(1, null, true, ns)).toEqual({ code: 1, signal: null });
    expect(commandExit(143, null, true, { kind: 'none', reason: 'x' })).toEqual({ code: 143, signal: null });
    expect(commandExit(null, 'SIGKILL', true, ns)).toEqual({ code: null, signal: 'SIGKILL' });
  });
});
