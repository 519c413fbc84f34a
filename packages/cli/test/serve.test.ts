import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentlaneFromSource } from '@agentlane/test-engines';
import { describe, expect, it } from 'vitest';
import { commands, resolveServeConfig, serve } from '../src';

const here = dirname(fileURLToPath(import.meta.url));
const startScript = join(here, '..', '..', '..', 'scripts', 'start.mjs');
const tmp = () => mkdtempSync(join(tmpdir(), 'agentlane-serve-'));
const quiet = () => {};

describe('agentlane serve', () => {
  it('serves the API on SQLite and stops cleanly', async () => {
    const dataDir = tmp();
    const config = resolveServeConfig({ port: '0', dataDir }, {});
    const { url, stop } = await serve({ ...config, recordedSessions: false }, quiet);
    const health = await (await fetch(`${url}/api/harness/health`)).json();
    expect(health).toMatchObject({ status: 'ok', store: 'sqlite' });
    await stop();
  });

  it('says in one line when the port is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const config = resolveServeConfig({ port: String(port), dataDir: tmp() }, {});
    await expect(serve({ ...config, recordedSessions: false }, quiet)).rejects.toThrow(
      `port ${port} is already in use on 127.0.0.1 (pick another with --port)`,
    );
    blocker.close();
  });

  it('says in one line when the database is unreachable, without its password', async () => {
    const config = resolveServeConfig({ port: '0', db: 'postgres://user:hunter2@127.0.0.1:1/db' }, {});
    const failure = serve({ ...config, recordedSessions: false }, quiet);
    await expect(failure).rejects.toThrow(
      /^cannot reach the database postgres:\/\/user:\*\*\*@127\.0\.0\.1:1\/db \(ECONNREFUSED\)$/,
    );
  });

  it('refuses a non-loopback address without tokens', async () => {
    const config = resolveServeConfig({ host: '0.0.0.0', port: '0', dataDir: tmp() }, {});
    await expect(serve({ ...config, recordedSessions: false }, quiet)).rejects.toThrow(/without auth/);
  });

  it('has --help on the program and on every subcommand', () => {
    const top = spawnSync(process.execPath, agentlaneFromSource(['--help']), { encoding: 'utf8' });
    expect(top.status).toBe(0);
    for (const command of commands) {
      expect(top.stdout).toContain(command.name);
      const sub = spawnSync(process.execPath, agentlaneFromSource([command.name, '--help']), {
        encoding: 'utf8',
      });
      expect(sub.status, sub.stderr).toBe(0);
      expect(sub.stdout).toContain(`Usage: agentlane ${command.name}`);
    }
    const bad = spawnSync(process.execPath, agentlaneFromSource(['serve', '--port', 'abc']), {
      encoding: 'utf8',
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim()).toBe('agentlane: --port must be a port number (0-65535), got "abc"');
  }, 120_000);

  it('npm start runs agentlane serve on 127.0.0.1 with SQLite and prints the URL; SIGTERM stops it', async () => {
    const dataDir = tmp();
    const child = spawn(process.execPath, [startScript, '--port', '0', '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    // The first start may build the web UI before serving.
    const deadline = Date.now() + 170_000;
    while (
      !/listening on (http:\/\/127\.0\.0\.1:\d+)/.test(out) &&
      Date.now() < deadline &&
      child.exitCode === null
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    expect(url, out).toBeDefined();
    expect(out).toContain(`store: sqlite ${join(dataDir, 'agentlane.db')}`);
    expect((await fetch(`${url}/api/harness/health`)).status).toBe(200);
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 200_000);

  // A probe closed the terminal (SIGHUP): the process died at once, without handing its runs back.
  it('SIGHUP drains and exits 0 as SIGTERM does', async () => {
    const child = spawn(
      process.execPath,
      agentlaneFromSource(['serve', '--port', '0', '--data-dir', tmp()]),
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    for (const stream of [child.stdout, child.stderr])
      stream.on('data', (d) => {
        out += d;
      });
    for (const deadline = Date.now() + 60_000; !/listening on http/.test(out) && Date.now() < deadline; )
      await new Promise((r) => setTimeout(r, 100));
    expect(out).toMatch(/listening on http/);
    const exited = new Promise<[number | null, string | null]>((r) =>
      child.on('exit', (code, sig) => r([code, sig])),
    );
    child.kill('SIGHUP');
    expect(await exited).toEqual([0, null]);
    expect(out).toContain('SIGHUP: closing streams');
  }, 90_000);
});
