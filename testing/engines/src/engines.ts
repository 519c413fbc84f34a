import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { resolveOpenCodeBinary } from '@agentlane/adapter-opencode';
import { ensureRealEngines, realEnginesDir } from './real-engines';

export interface EngineEntries {
  claude: string | null;
  codex: string | null;
  gemini: string | null;
  opencode: string | null;
  /** Qwen Code's `qwen` entry script (a Node script). */
  qwen: string | null;
  /** Cline's platform binary (what its `cline` launcher runs). */
  cline: string | null;
  /** GitHub Copilot CLI's platform binary (what its `copilot` launcher runs). */
  copilot: string | null;
  /** Why the entries are null (the install failed or was skipped). */
  reason: string | null;
}

/** Where the pinned engines are (installing them first, see `ensureRealEngines`; null when not there). */
export function engineEntries(): EngineEntries {
  const reason = ensureRealEngines();
  const require = createRequire(join(realEnginesDir, 'package.json'));
  const packageDir = (name: string) => {
    try {
      return dirname(require.resolve(`${name}/package.json`));
    } catch {
      return null;
    }
  };
  // A package whose `exports` hide its package.json: its main export is the binary.
  const resolved = (name: string) => {
    try {
      return require.resolve(name);
    } catch {
      return null;
    }
  };
  const file = (dir: string | null, path: string) =>
    dir && existsSync(join(dir, path)) ? join(dir, path) : null;
  let opencode: string | null = null;
  try {
    opencode = resolveOpenCodeBinary(undefined, [join(realEnginesDir, 'package.json')]);
  } catch {
    // not installed
  }
  return {
    claude: file(packageDir('@zed-industries/claude-agent-acp'), 'dist/index.js'),
    codex: file(packageDir(`@zed-industries/codex-acp-${process.platform}-${process.arch}`), 'bin/codex-acp'),
    gemini: file(packageDir('@google/gemini-cli'), 'bundle/gemini.js'),
    opencode,
    qwen: file(packageDir('@qwen-code/qwen-code'), 'cli-entry.js'),
    cline: file(packageDir(`@cline/cli-${platformTag()}`), 'bin/cline'),
    copilot: resolved(`@github/copilot-${process.platform}-${process.arch}`),
    reason,
  };
}

/** Cline names its platform packages `cli-<os>-<arch>` with `windows` for win32. */
function platformTag(): string {
  return `${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
}

/** `why` a pinned engine is missing, as the tests print it (skip) or throw it (CI=true). */
export function missingEngine(name: string, entries: EngineEntries): string {
  return `the pinned engine ${name} is not installed in testing/engines/real${entries.reason ? `: ${entries.reason}` : ''}`;
}
