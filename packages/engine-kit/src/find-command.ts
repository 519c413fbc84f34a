import { accessSync, closeSync, constants, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { delimiter, extname, join } from 'node:path';

/**
 * An engine entry `agentlane serve` can offer without a config file, with what it is and why it is offered
 * (each adapter's `discoverEngines(env, { cwd })` returns these).
 */
export interface DiscoveredEngine {
  /** The adapter options (the config file's engine entry without `type`); never a key. */
  options: { name: string; label: string } & Record<string, unknown>;
  /** Options handed to the driver in memory only, never written to a config file (a key read from env). */
  inMemory?: Record<string, unknown>;
  /** Why it is offered, e.g. "OPENAI_API_KEY is set". */
  why: string;
  /** Variables the entry needs at run time (init writes them as comments, never their values). */
  env: string[];
  /** What a config file written from this entry should say beside it. */
  notes?: string[];
}

/** An engine command found on this machine, and where it was found (for the "why it is offered" label). */
export interface FoundCommand {
  /** The name it was found under, e.g. "claude-agent-acp". */
  name: string;
  /** The file itself, symlinks resolved (an npm `.bin` entry is a link to the package's script). */
  path: string;
  where: 'project' | 'PATH';
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The first of `names` installed in the project (`<cwd>/node_modules/.bin`) or on the `PATH` of `env`, in
 * that order; undefined when none is. Never throws: a directory that cannot be read is skipped.
 */
export function findCommand(
  names: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): FoundCommand | undefined {
  const dirs: { dir: string; where: FoundCommand['where'] }[] = [
    { dir: join(cwd, 'node_modules', '.bin'), where: 'project' },
    ...(env.PATH ?? '')
      .split(delimiter)
      .filter((d) => d.length > 0)
      .map((dir) => ({ dir, where: 'PATH' as const })),
  ];
  for (const name of names) {
    for (const { dir, where } of dirs) {
      const candidate = join(dir, name);
      if (!executable(candidate)) continue;
      try {
        return { name, path: realpathSync(candidate), where };
      } catch {
        // a link that went away between the two calls
      }
    }
  }
  return undefined;
}

/** Whether a file is a Node.js script (by extension or a `node` shebang), which `node <file>` can run. */
export function isNodeScript(path: string): boolean {
  if (['.js', '.mjs', '.cjs'].includes(extname(path))) return true;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(128);
    const n = readSync(fd, head, 0, head.length, 0);
    const firstLine = head.subarray(0, n).toString('utf8').split('\n')[0] ?? '';
    return firstLine.startsWith('#!') && /\bnode\b/.test(firstLine);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
