import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Where the pinned `opencode` binary is. `opencode-ai` ships it as a per-platform optional dependency
 * (`opencode-linux-x64/bin/opencode`); its postinstall only links it, so we resolve the platform package,
 * from `searchFrom` (package.json paths whose node_modules to look in) first, then from here and the cwd.
 */
export function resolveOpenCodeBinary(explicit?: string, searchFrom: string[] = []): string {
  if (explicit) return explicit;
  const fromEnv = process.env.AGENTLANE_OPENCODE_BIN;
  if (fromEnv) return fromEnv;
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const names = [`opencode-${platform}-${process.arch}`, `opencode-${platform}-${process.arch}-baseline`];
  const bases = [...searchFrom, import.meta.url, join(process.cwd(), 'package.json')];
  for (const base of bases) {
    const require = createRequire(base);
    for (const name of names) {
      try {
        const bin = join(dirname(require.resolve(`${name}/package.json`)), 'bin', 'opencode');
        if (existsSync(bin)) return bin;
      } catch {
        // not installed from here; try the next
      }
    }
  }
  throw new Error(
    'the opencode binary was not found: install opencode-ai (npm i opencode-ai@1.18.33) or set AGENTLANE_OPENCODE_BIN',
  );
}
