import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createEngineHome, sandboxEnv, spawnOwned, startDenyAllProxy } from '../src/index';

const here = dirname(fileURLToPath(import.meta.url));

describe('engine sandbox helpers', () => {
  it('the deny-all proxy refuses plain requests and CONNECT tunnels, and records them', async () => {
    const proxy = await startDenyAllProxy();
    try {
      const port = Number(new URL(proxy.url).port);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: 'http://example.com/x', method: 'GET' },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(403);
      const line = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.write('CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n'),
        );
        socket.once('data', (d) => {
          resolve(d.toString().split('\r\n')[0] ?? '');
          socket.destroy();
        });
        socket.on('error', reject);
      });
      expect(line).toContain('403');
      expect(proxy.attempts.map((a) => `${a.method} ${a.target}`)).toEqual([
        'GET http://example.com/x',
        'CONNECT example.com:443',
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('builds a temp HOME and an environment that inherits no secrets', async () => {
    const home = await createEngineHome();
    process.env.AGENTLANE_SECRET_FOR_TEST = 'sk-do-not-leak';
    try {
      await home.write('.config/x/settings.json', '{}');
      expect(existsSync(`${home.home}/.config/x/settings.json`)).toBe(true);
      const env = sandboxEnv({ homeEnv: home.env, proxyUrl: 'http://127.0.0.1:9', extra: { FOO: '1' } });
      expect(env.HOME).toBe(home.home);
      expect(env.HTTPS_PROXY).toBe('http://127.0.0.1:9');
      expect(env.NO_PROXY).toContain('127.0.0.1');
      expect(env.FOO).toBe('1');
      expect(Object.values(env)).not.toContain('sk-do-not-leak');
    } finally {
      delete process.env.AGENTLANE_SECRET_FOR_TEST;
      await home.dispose();
    }
    expect(existsSync(home.home)).toBe(false);
  });

  it('owns a child process group: stderr tail, exit, and kill of the whole group', async () => {
    const owned = spawnOwned('sh', ['-c', 'echo oops >&2; sleep 30 & sleep 30'], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '' },
    });
    await new Promise((r) => setTimeout(r, 150));
    expect(owned.stderrTail()).toContain('oops');
    const exit = await owned.kill(500);
    expect(exit.signal ?? exit.code).toBeTruthy();
    for (let i = 0; i < 100 && liveMembers(owned.pid).length > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(liveMembers(owned.pid)).toEqual([]);
  });

  it('kills the children an engine left behind when it exited, although the engine itself is gone', async () => {
    const owned = spawnOwned('sh', ['-c', "sleep 1000 & sh -c 'sleep 1001' & exit 3"], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '' },
    });
    expect((await owned.exited).code).toBe(3);
    expect(liveMembers(owned.pid).length).toBeGreaterThanOrEqual(2);
    expect((await owned.kill(500)).code).toBe(3);
    for (let i = 0; i < 100 && liveMembers(owned.pid).length > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(liveMembers(owned.pid)).toEqual([]);
  });

  it('kills the engine group when the owning process is SIGKILLed (no exit hook runs)', async () => {
    const harness = spawn(
      process.execPath,
      ['--conditions=agentlane-source', '--import', 'tsx', join(here, 'fixtures', 'owning-harness.ts')],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const pgid = await new Promise<number>((resolve, reject) => {
      harness.stdout.setEncoding('utf8');
      harness.stdout.once('data', (line: string) => resolve(Number.parseInt(line, 10)));
      harness.once('exit', (code) =>
        reject(new Error(`the harness exited (${code}) before it owned an engine`)),
      );
    });
    expect(pgid).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(liveMembers(pgid).length).toBeGreaterThan(0);
    harness.kill('SIGKILL');
    for (let i = 0; i < 250 && liveMembers(pgid).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(liveMembers(pgid)).toEqual([]);
  });
});

/** Live members of a process group (killed ones may linger as zombies until their new parent reaps them). */
function liveMembers(pgid: number): string[][] {
  return execFileSync('ps', ['-e', '-o', 'pgid=,stat='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([group, stat]) => Number(group) === pgid && stat !== undefined && !stat.startsWith('Z'));
}
