import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentlaneFromSource } from '@agentlane/test-engines';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram, CliError } from '../src';
import { formatError } from '../src/cli-error';
import { runCheckpointsCommand } from '../src/commands/checkpoints-client';
import { createProgress } from '../src/progress';
import { bearerToken, serverUrl } from '../src/remote';

const ESC = '\x1b';
/** What main.ts prints when `agentlane ARGS` fails (the thrown error, formatted). */
async function failure(args: string[]): Promise<string> {
  try {
    await buildProgram().parseAsync(['node', 'agentlane', ...args]);
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    return formatError(err);
  }
  throw new Error(`agentlane ${args.join(' ')} did not fail`);
}

/** `agentlane ARGS` as its own process, from the sources. */
function run(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, agentlaneFromSource(args), {
    env: { ...process.env, AGENTLANE_URL: '', AGENTLANE_TOKEN: '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr })));
}

// A server that refuses every request, quoting what it was sent like a careless one would.
const server = createServer((req, res) => {
  res.statusCode = 400;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ error: { message: `bad ${ESC}[32m${decodeURIComponent(req.url ?? '')}` } }));
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('--server and AGENTLANE_URL', () => {
  it('every command that takes a server says in one line that it is not a URL', async () => {
    for (const command of [
      ['audit', 'X'],
      ['checkpoints', 'X'],
      ['acp', '--engine', 'e'],
    ])
      expect(await failure([...command, '--server', 'notaurl'])).toBe(
        'agentlane: --server: not a URL: notaurl',
      );
    expect(() => serverUrl(undefined, { AGENTLANE_URL: 'notaurl' })).toThrow(
      'AGENTLANE_URL: not a URL: notaurl',
    );
    expect(() => serverUrl('localhost:7621')).toThrow('--server: not an http(s) URL: localhost:7621');
    expect(serverUrl(undefined, { AGENTLANE_URL: '' })).toBe('http://127.0.0.1:7433');
    expect(serverUrl(undefined, { AGENTLANE_URL: 'https://h.example/' })).toBe('https://h.example/');
  });

  it('refuses credentials in the URL without printing them', async () => {
    for (const command of [
      ['audit', 'X'],
      ['checkpoints', 'X'],
      ['acp', '--engine', 'e'],
    ]) {
      const line = await failure([...command, '--server', 'http://admin:hunter2@127.0.0.1:7621']);
      expect(line).toMatch(/^agentlane: --server: http:\/\/\*\*\*@127\.0\.0\.1:7621 has credentials in it/);
    }
    // Not a URL either (the port): still nothing before the last `@` is shown.
    expect(() => serverUrl('http://admin:hun@ter2@127.0.0.1:99999')).toThrow(
      /^--server: not a URL: http:\/\/\*\*\*@127\.0\.0\.1:99999$/,
    );
    expect(() => serverUrl('admin:hunter2@127.0.0.1')).toThrow(/^--server: not an http\(s\) URL: \*\*\*@127/);
  });
});

describe('--token and AGENTLANE_TOKEN', () => {
  it('refuses a token that is no header value, without echoing it', async () => {
    const line = await failure(['audit', 'X', '--server', base, '--token', 'bad\ntoken']);
    expect(line).toBe('agentlane: --token: not a valid bearer token (it has a control character)');
    expect(await failure(['checkpoints', 'X', '--server', base, '--token', 'bad token'])).toBe(
      'agentlane: --token: not a valid bearer token (it has a space)',
    );
    expect(() => bearerToken(undefined, { AGENTLANE_TOKEN: 'tök' })).toThrow(
      'AGENTLANE_TOKEN: not a valid bearer token (it has a character outside visible ASCII)',
    );
    expect(bearerToken(undefined, { AGENTLANE_TOKEN: ' abc.DEF-123_~+/= \n' })).toBe('abc.DEF-123_~+/=');
    expect(bearerToken('', { AGENTLANE_TOKEN: 'ignored' })).toBeUndefined();
  });
});

describe('what the CLI prints', () => {
  it('escapes control and bidi characters of its input and of server messages', async () => {
    const line = await failure(['audit', `x${ESC}[31m\u202e`, '--server', base]);
    expect(line).toMatch(/^agentlane: audit of x\\u001b\[31m\\u202e: 400 bad \\u001b\[32m/);
    expect(line).not.toMatch(/[\p{Cc}\p{Bidi_Control}]/u);
    const cp = await failure(['checkpoints', `x${ESC}[31m`, '--server', base]);
    expect(cp).toMatch(/^agentlane: HTTP 400: bad \\u001b\[32m/);
    const lines: string[] = [];
    const progress = createProgress(`agentlane audit x${ESC}]0;title\x07`, 'rows', {
      write: (l) => lines.push(l),
      intervalMs: -1,
    });
    progress.update(1);
    expect(lines).toEqual(['agentlane audit x\\u001b]0;title\\u0007: 1 rows']);
  });

  it('escapes them in the checkpoints table and its empty line as well', async () => {
    const row = {
      checkpointId: 'cp1',
      sessionId: 's',
      namespace: `ns${ESC}[2J`,
      stageId: 'input',
      createdAt: '2025-01-01T00:00:00.000Z',
      schemaVersion: 1,
      parentCheckpointId: null,
      storage: 'full',
      bytes: 1,
      pinned: false,
    };
    const page = (checkpoints: unknown[]) =>
      (async () => Response.json({ checkpoints, nextCursor: null })) as unknown as typeof fetch;
    const lines: string[] = [];
    const write = (l: string) => lines.push(l);
    await runCheckpointsCommand({ server: base, session: 's', fetch: page([row]), write });
    await runCheckpointsCommand({ server: base, session: `s${ESC}[2J`, fetch: page([]), write });
    expect(lines[1]).toContain('ns\\u001b[2J');
    expect(lines[2]).toBe('session s\\u001b[2J has no checkpoints');
    expect(lines.join('')).not.toContain(ESC);
  });

  it('redacts credentials in any error message, fetch errors included', async () => {
    // Called directly, past the option checks: fetch's message quotes the whole URL.
    const err = await runCheckpointsCommand({
      server: 'http://admin:hunter2@127.0.0.1:1',
      session: 'X',
    }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('hunter2');
    const line = formatError(new CliError((err as Error).message));
    expect(line).not.toContain('hunter2');
    expect(line).toContain('http://***@127.0.0.1:1');
    // A bug keeps its stack, made printable line by line.
    const bug = new TypeError(`Invalid URL https://u:p@h/${ESC}`);
    expect(formatError(bug).split('\n')[0]).toBe('TypeError: Invalid URL https://***@h/\\u001b');
    expect(formatError(bug).split('\n').length).toBeGreaterThan(1);
  });

  it('the process prints one line on stderr and exits 1 (and commander errors are escaped too)', async () => {
    const [notUrl, envNotUrl, secret, token, option] = await Promise.all([
      run(['audit', 'X', '--server', 'notaurl']),
      run(['audit', 'X'], { AGENTLANE_URL: 'notaurl' }),
      run(['checkpoints', 'X', '--server', 'http://admin:hunter2@127.0.0.1:7621']),
      run(['audit', 'X', '--server', base, '--token', 'bad\ntoken']),
      run(['audit', 'X', `--bo${ESC}gus`]),
    ]);
    expect(notUrl).toEqual({ status: 1, stderr: 'agentlane: --server: not a URL: notaurl\n' });
    expect(envNotUrl).toEqual({ status: 1, stderr: 'agentlane: AGENTLANE_URL: not a URL: notaurl\n' });
    expect(secret.status).toBe(1);
    expect(secret.stderr).not.toContain('hunter2');
    expect(secret.stderr.trim().split('\n')).toHaveLength(1);
    expect(token).toEqual({
      status: 1,
      stderr: 'agentlane: --token: not a valid bearer token (it has a control character)\n',
    });
    expect(option.status).toBe(1);
    expect(option.stderr).toContain("error: unknown option '--bo\\u001bgus'");
    expect(option.stderr).not.toContain(ESC);
  }, 120_000);
});
