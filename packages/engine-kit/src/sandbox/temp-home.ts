import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface EngineHome {
  /** The temporary HOME directory. */
  home: string;
  /** HOME plus the XDG directories inside it. */
  env: Record<string, string>;
  /** Writes a file relative to HOME (config files engines read at start). */
  write(relativePath: string, content: string): Promise<string>;
  dispose(): Promise<void>;
}

/**
 * A fresh HOME per engine process, so engines never read or write the user's real configuration,
 * credentials or history, and two engines never share state.
 */
export async function createEngineHome(prefix = 'agentlane-engine-'): Promise<EngineHome> {
  const home = await mkdtemp(join(tmpdir(), prefix));
  const xdg = {
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
  };
  await Promise.all(Object.values(xdg).map((dir) => mkdir(dir, { recursive: true })));
  return {
    home,
    env: { HOME: home, USERPROFILE: home, ...xdg },
    async write(relativePath, content) {
      const path = join(home, relativePath);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content);
      return path;
    },
    dispose: () => rm(home, { recursive: true, force: true }),
  };
}
