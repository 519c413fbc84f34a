import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAuditCommand } from '../src/commands/audit';
import { runCheckpointsCommand } from '../src/commands/checkpoints-client';
import { runCli } from './run-cli';

// Not agentlane: answers 200 `{}` to everything, as a generic JSON service (or an OTLP receiver) does.
const other = createServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end('{}');
});
// Accepts connections and never answers.
const sockets: Socket[] = [];
const silent: Server = createTcpServer((socket) => sockets.push(socket));
// Sends the headers of a 200, then stalls in the middle of the body.
const stalls = createServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.write('{"calls": [');
});
const url = (server: { address(): unknown }) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
let otherUrl = '';
let silentUrl = '';
let stallsUrl = '';
beforeAll(async () => {
  for (const server of [other, silent, stalls])
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  [otherUrl, silentUrl, stallsUrl] = [url(other), url(silent), url(stalls)];
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  stalls.closeAllConnections();
  await Promise.all([other, silent, stalls].map((s) => new Promise((r) => s.close(r))));
});

describe('checkpoints and audit against a server that is not agentlane', () => {
  it('each says in one line what the answer was not, exit 1', async () => {
    const [list, one, audit] = await Promise.all([
      runCli(['checkpoints', 'abc', '--server', otherUrl]),
      runCli(['checkpoints', 'abc', '--server', otherUrl, '--id', 'x']),
      runCli(['audit', 'abc', '--server', otherUrl]),
    ]);
    const notAgentlane = (what: string) =>
      `agentlane: ${otherUrl} did not answer with ${what}; is it an agentlane server?\n`;
    expect(list).toMatchObject({
      status: 1,
      stdout: '',
      stderr: notAgentlane('a checkpoint list ({checkpoints: [...], nextCursor})'),
    });
    expect(one).toMatchObject({
      status: 1,
      stdout: '',
      stderr: notAgentlane('a checkpoint ({id, channels, ...})'),
    });
    expect(audit).toMatchObject({
      status: 1,
      stdout: '',
      stderr: notAgentlane('an audit page ({calls: [...], nextCursor})'),
    });
  }, 90_000);

  it('rejects rows of the wrong shape as well', async () => {
    const page = (body: unknown) => (async () => Response.json(body)) as unknown as typeof fetch;
    await expect(
      runCheckpointsCommand({
        server: 'http://x',
        session: 's',
        fetch: page({ checkpoints: [1], nextCursor: null }),
      }),
    ).rejects.toThrow(/did not answer with a checkpoint list/);
    await expect(
      runCheckpointsCommand({
        server: 'http://x',
        session: 's',
        fetch: page({ checkpoints: [], nextCursor: 5 }),
      }),
    ).rejects.toThrow(/did not answer with a checkpoint list/);
  });
});

describe('the request timeout of checkpoints and audit', () => {
  it('ends a request the server never answers, per --timeout-ms or AGENTLANE_TIMEOUT_MS', async () => {
    const started = Date.now();
    const [audit, checkpoints, fromEnv] = await Promise.all([
      runCli(['audit', 'abc', '--server', silentUrl, '--timeout-ms', '300']),
      runCli(['checkpoints', 'abc', '--server', silentUrl, '--timeout-ms', '300']),
      runCli(['audit', 'abc', '--server', silentUrl], { AGENTLANE_TIMEOUT_MS: '300' }),
    ]);
    const timedOut = `agentlane: ${silentUrl} did not answer within 300 ms (raise it with --timeout-ms or AGENTLANE_TIMEOUT_MS)\n`;
    for (const r of [audit, checkpoints, fromEnv])
      expect(r).toMatchObject({ status: 1, stderr: timedOut, killed: false });
    expect(Date.now() - started).toBeLessThan(40_000);
  }, 60_000);

  it('also bounds a body that stalls halfway, and defaults to 30 s', async () => {
    await expect(
      runAuditCommand({ server: stallsUrl, session: 's', timeoutMs: 300, write: () => {} }),
    ).rejects.toThrow(`${stallsUrl} did not answer within 300 ms`);
    const help = await runCli(['audit', '--help']);
    expect(help.stdout).toMatch(/--timeout-ms <ms>\s+give up on a request/);
    expect(help.stdout).toContain('AGENTLANE_TIMEOUT_MS, default 30000');
    const bad = await runCli(['checkpoints', 'abc', '--server', otherUrl, '--timeout-ms', '0']);
    expect(bad).toMatchObject({
      status: 1,
      stderr: 'agentlane: --timeout-ms must be an integer from 1 to 3600000, got "0"\n',
    });
  }, 60_000);
});
