import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { JsonObject } from '@agentlane/contract';
import { type OwnedProcess, sandboxEnv, sharedDenyAllProxy, spawnOwned } from '@agentlane/engine-kit';

export interface OpenCodeServer {
  url: string;
  process: OwnedProcess;
  stop(): Promise<void>;
}

export interface StartServerOptions {
  binary: string;
  /** A HOME kept across agentlane restarts, so OpenCode's stored sessions can be reattached. */
  home: string;
  /** The OpenCode configuration (written as the global config in HOME). */
  config: JsonObject;
  /** The process's cwd (every request also names its project directory). */
  cwd: string;
  extraEnv?: Record<string, string>;
  /** `open`: no deny-all proxy in front of OpenCode (it reaches its provider's public endpoint). */
  network?: 'loopback' | 'open';
  startTimeoutMs?: number;
  onLog?(line: string): void;
}

/** Switches from engines.md: no autoupdate, sharing, model catalog download, LSP download, default plugins. */
const QUIET_ENV: Record<string, string> = {
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
  OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
  OPENCODE_DISABLE_EMBEDDED_WEB_UI: '1',
  DO_NOT_TRACK: '1',
};

/**
 * Starts `opencode serve` on loopback with its own HOME and every outbound call sent to the deny-all sink,
 * and resolves with the URL it prints ("opencode server listening on http://…"): the port asked for is read
 * back, never assumed.
 */
export async function startOpenCodeServer(options: StartServerOptions): Promise<OpenCodeServer> {
  const home = options.home;
  const homeEnv = {
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
  };
  await Promise.all(Object.values(homeEnv).map((dir) => mkdir(dir, { recursive: true })));
  const configPath = join(homeEnv.XDG_CONFIG_HOME, 'opencode', 'opencode.json');
  await mkdir(join(homeEnv.XDG_CONFIG_HOME, 'opencode'), { recursive: true });
  await writeFile(configPath, `${JSON.stringify(options.config, null, 2)}\n`);
  const proxyUrl = options.network === 'open' ? undefined : (await sharedDenyAllProxy()).url;
  const env = sandboxEnv({
    homeEnv,
    ...(proxyUrl ? { proxyUrl } : {}),
    extra: { ...QUIET_ENV, OPENCODE_CONFIG: configPath, ...options.extraEnv },
  });
  // A port of our choosing: `--port 0` makes opencode try its default 4096 first, so a server started again
  // soon after one on 4096 was stopped came up on that port while the old one's connections still closed,
  // and the restarted session's first calls failed ("fetch failed").
  const port = await freeLoopbackPort();
  const child = spawnOwned(
    options.binary,
    ['serve', '--port', String(port), '--hostname', '127.0.0.1', '--print-logs', '--log-level', 'WARN'],
    { cwd: options.cwd, env, ...(options.onLog ? { onStderr: options.onLog } : {}) },
  );
  child.child.stdin?.end();
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => {
      // Never leave a half-started server behind.
      void child.kill(2000);
      reject(new Error(`opencode serve did not start in time; stderr: ${child.stderrTail().slice(-800)}`));
    }, options.startTimeoutMs ?? 120_000);
    const onData = (chunk: Buffer | string) => {
      buffer = (buffer + chunk.toString()).slice(-4096);
      const match = /listening on (https?:\/\/[^\s]+)/.exec(buffer);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1].replace(/\/$/, ''));
      }
    };
    child.child.stdout?.on('data', onData);
    child.child.stderr?.on('data', onData);
    void child.exited.then((exit) => {
      clearTimeout(timer);
      reject(
        new Error(
          `opencode serve exited (code ${exit.code}, signal ${exit.signal}): ${child.stderrTail().slice(-800)}`,
        ),
      );
    });
  });
  // Keep draining stdout so the pipe never fills.
  child.child.stdout?.resume();
  return {
    url,
    process: child,
    stop: async () => {
      await child.kill(3000);
    },
  };
}

/** A loopback port nothing listens on now (the OS's pick for port 0), for a child to listen on. */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
