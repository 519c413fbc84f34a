import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cliMain = fileURLToPath(new URL('../../../packages/cli/src/main.ts', import.meta.url));
/** tsx's ESM loader by URL: a child started in another folder (`cwd`) could not resolve `tsx` by name. */
const tsxLoader = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'loader.mjs'),
).href;

/**
 * `node` arguments that run the agentlane CLI from its TypeScript sources (tsx, and the workspace packages'
 * `agentlane-source` export instead of their dist/ builds), then `args`: what the tests spawn, so they never
 * depend on a build being there or fresh. `agentlane` itself (packages/cli/bin) runs the compiled dist/.
 */
export function agentlaneFromSource(args: string[]): string[] {
  return ['--conditions=agentlane-source', '--import', tsxLoader, cliMain, ...args];
}

export interface ServeProcess {
  child: ChildProcess;
  /** e.g. http://127.0.0.1:7433 */
  url: string;
  /** `${url}/api/harness` */
  api: string;
  /** SIGKILL, like a crash; resolves once the process is gone. */
  kill(): Promise<void>;
}

/**
 * `agentlane serve` as its own process (`args` after `serve`, e.g. `--port 0 --db x --config y`), so a test
 * can SIGKILL it like a crash and start it again on the same database. Resolves once it listens; `output()`
 * is everything it printed so far (stdout and stderr).
 */
export async function startServeProcess(
  args: string[],
  timeoutMs = 60_000,
  env: NodeJS.ProcessEnv = process.env,
  /** Its working directory (where it looks for engines installed in a project); this process's by default. */
  cwd?: string,
): Promise<ServeProcess & { output(): string }> {
  const child = spawn(process.execPath, agentlaneFromSource(['serve', ...args]), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
    ...(cwd ? { cwd } : {}),
  });
  let out = '';
  // Resolved by the output itself (the line that says it listens) or by the exit: no polling interval.
  let changed: () => void = () => {};
  const heard = (d: Buffer | string) => {
    out += d;
    changed();
  };
  child.stdout?.on('data', heard);
  child.stderr?.on('data', heard);
  child.once('exit', () => changed());
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    if (url) {
      changed = () => {};
      return { child, url, api: `${url}/api/harness`, kill, output: () => out };
    }
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      await kill();
      throw new Error(`agentlane serve did not start: ${out}`);
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()) + 1);
      changed = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/**
 * An `agentlane serve` config file's content with one built-in engine (`builtin`) whose model is the fake
 * model server's Chat Completions API, and no recorded replays. Checkpoints go to serve's own database.
 */
export function builtinServeConfig(options: {
  fakeUrl: string;
  workDir: string;
  apiKey: string;
  webRoot?: string;
  plan?: boolean;
}): Record<string, unknown> {
  return {
    ...(options.webRoot ? { webRoot: options.webRoot } : {}),
    workDir: options.workDir,
    recordedSessions: false,
    engines: [
      {
        name: 'builtin',
        type: 'builtin',
        api: 'openai-chat',
        model: 'fake-model',
        baseURL: `${options.fakeUrl}/v1`,
        apiKey: options.apiKey,
        ...(options.plan !== undefined ? { plan: options.plan } : {}),
      },
    ],
  };
}

/** A port free on 127.0.0.1 now, for a serve process that must come back on the same one after a kill. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}
