import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createEngineHome, sandboxEnv, spawnOwned, startDenyAllProxy } from '../src/index';

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
    // Killed members may linger as zombies until their new parent reaps them: count only live ones.
    const liveMembers = () =>
      execFileSync('ps', ['-e', '-o', 'pgid=,stat='], { encoding: 'utf8' })
        .split('\n')
        .map((line) => line.trim().split(/\s+/))
        .filter(([pgid, stat]) => Number(pgid) === owned.pid && stat !== undefined && !stat.startsWith('Z'));
    for (let i = 0; i < 100 && liveMembers().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(liveMembers()).toEqual([]);
  });
});
