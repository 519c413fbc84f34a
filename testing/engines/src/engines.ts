import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

function packageDir(name: string): string | null {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

/** Where the pinned engines of this workspace live (null when not installed). */
export function engineEntries(): { claude: string | null; codex: string | null; gemini: string | null } {
  const claude = packageDir('@zed-industries/claude-agent-acp');
  const codex = packageDir(`@zed-industries/codex-acp-${process.platform}-${process.arch}`);
  const gemini = packageDir('@google/gemini-cli');
  const file = (dir: string | null, path: string) =>
    dir && existsSync(join(dir, path)) ? join(dir, path) : null;
  return {
    claude: file(claude, 'dist/index.js'),
    codex: file(codex, 'bin/codex-acp'),
    gemini: file(gemini, 'bundle/gemini.js'),
  };
}
