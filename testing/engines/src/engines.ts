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
  /** pi-acp's script, the `pi` launcher it starts, and a Node >= 22.19 to run both (pi needs it). */
  pi: string | null;
  piCli: string | null;
  piNode: string | null;
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
      // Its `exports` hide package.json: look in the node_modules folders themselves.
      const dirs = require.resolve.paths(name) ?? [];
      return dirs.map((d) => join(d, name)).find((d) => existsSync(join(d, 'package.json'))) ?? null;
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
    copilot: file(packageDir(`@github/copilot-${process.platform}-${process.arch}`), 'copilot'),
    pi: file(packageDir('pi-acp'), 'dist/index.js'),
    piCli: file(packageDir('@earendil-works/pi-coding-agent'), 'dist/bundle/cli.js'),
    // The pinned Node 22 (linux-x64 only), else agentlane's own when it is new enough.
    piNode:
      file(packageDir(`node-${process.platform}-${process.arch}`), 'bin/node') ??
      (nodeAtLeast(22, 19) ? process.execPath : null),
    reason,
  };
}

function nodeAtLeast(major: number, minor: number): boolean {
  const [a = 0, b = 0] = process.versions.node.split('.').map(Number);
  return a > major || (a === major && b >= minor);
}

/** Cline names its platform packages `cli-<os>-<arch>` with `windows` for win32. */
function platformTag(): string {
  return `${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
}

/** `why` a pinned engine is missing, as the tests print it (skip) or throw it (CI=true). */
export function missingEngine(name: string, entries: EngineEntries): string {
  return `the pinned engine ${name} is not installed in testing/engines/real${entries.reason ? `: ${entries.reason}` : ''}`;
}
