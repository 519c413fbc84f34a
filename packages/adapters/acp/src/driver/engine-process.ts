import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  asString,
  type OpenSessionOptions,
  type OwnedProcess,
  type SessionBinding,
  sandboxEnv,
  sharedDenyAllProxy,
  spawnOwned,
} from '@agentlane/engine-kit';
import { type AcpEngineConfig, substitute } from './config.js';

/** A new, empty HOME for one thread of the engine, under `homeRoot`. */
export async function newEngineHome(config: AcpEngineConfig): Promise<string> {
  const root = config.homeRoot ?? join(tmpdir(), 'agentlane-acp-homes');
  await mkdir(root, { recursive: true });
  return mkdtemp(join(root, `${config.name.replace(/[^A-Za-z0-9_-]/g, '_')}-`));
}

/** The engine's HOME for a thread: reused when a previous binding names one that still exists. */
async function engineHome(config: AcpEngineConfig, previous: SessionBinding | undefined): Promise<string> {
  const earlier = previous ? asString(previous.runtimeBinding.home) : undefined;
  if (earlier && existsSync(earlier)) return earlier;
  return newEngineHome(config);
}

/**
 * Starts the engine process of one session: in its own HOME (with the configured home files), with a
 * sandboxed environment whose network goes through the deny-all proxy unless the config opens it.
 */
export async function spawnAcpEngine(
  config: AcpEngineConfig,
  options: OpenSessionOptions,
): Promise<{ engine: OwnedProcess; home: string }> {
  const home = await engineHome(config, options.previous);
  const vars = { HOME: home, WORKDIR: options.workDir };
  for (const [path, content] of Object.entries(config.homeFiles ?? {})) {
    const target = join(home, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, substitute(content, vars));
  }
  const xdg = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
  };
  const proxyUrl = config.network === 'open' ? undefined : (await sharedDenyAllProxy()).url;
  const extra = Object.fromEntries(
    Object.entries(config.env ?? {}).map(([k, v]) => [k, substitute(v, vars)]),
  );
  const env = sandboxEnv({ homeEnv: xdg, ...(proxyUrl ? { proxyUrl } : {}), extra });
  const engine = spawnOwned(config.command, config.args ?? [], {
    cwd: options.workDir,
    env,
    ...(config.onStderr ? { onStderr: config.onStderr } : {}),
  });
  return { engine, home };
}
