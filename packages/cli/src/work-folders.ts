import { statSync } from 'node:fs';
import { CliError } from './cli-error.js';
import type { ConfigFile, ServeConfig, ServeFlags } from './config.js';

/**
 * Which setting named the work folder and the workspace root: the flag, the variable or the config file's
 * field that won (flag > environment > config file), none for a default.
 */
export function folderSettings(
  flags: Pick<ServeFlags, 'workspaceRoot'>,
  env: NodeJS.ProcessEnv,
  file: Pick<ConfigFile, 'workDir' | 'workspaceRoot'>,
  configPath: string | undefined,
): NonNullable<ServeConfig['folderSettings']> {
  const inFile = (key: string) => `${key} in ${configPath ?? 'the config file'}`;
  const workDir =
    env.AGENTLANE_WORK_DIR !== undefined
      ? 'AGENTLANE_WORK_DIR'
      : file.workDir !== undefined
        ? inFile('workDir')
        : undefined;
  const workspaceRoot =
    flags.workspaceRoot !== undefined
      ? '--workspace-root'
      : env.AGENTLANE_WORKSPACE_ROOT !== undefined
        ? 'AGENTLANE_WORKSPACE_ROOT'
        : file.workspaceRoot !== undefined
          ? inFile('workspaceRoot')
          : undefined;
  return { ...(workDir ? { workDir } : {}), ...(workspaceRoot ? { workspaceRoot } : {}) };
}

/** A work-folder setting that names no folder: the setting, what is wrong, and the fix. */
export interface FolderProblem {
  what: string;
  problem: string;
  fix: string;
}

function folderProblem(path: string, setting: string, what: string): FolderProblem | undefined {
  let problem: string | undefined;
  try {
    if (!statSync(path).isDirectory()) problem = `${setting} names ${path}, which is not a folder`;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    problem =
      code === 'ENOENT' || code === 'ENOTDIR'
        ? `${setting} names ${path}, which does not exist`
        : `${setting} names ${path}, which cannot be used (${code ?? (err as Error).message})`;
  }
  return problem ? { what, problem, fix: `create that folder, or point ${setting} at one` } : undefined;
}

/**
 * The work folder (sessions' default workDir) and the workspace root must be existing folders: neither is
 * created (a typo would otherwise serve sessions in a folder nobody meant, or bound them by one that is not
 * there). The root is checked only when it is set apart from the work folder.
 */
export function workFolderProblems(config: ServeConfig): FolderProblem[] {
  const settings = config.folderSettings ?? {};
  const problems = [
    folderProblem(config.workDir, settings.workDir ?? 'the work folder (the current folder)', 'work folder'),
  ];
  if (config.workspaceRoot !== config.workDir || settings.workspaceRoot)
    problems.push(
      folderProblem(
        config.workspaceRoot,
        settings.workspaceRoot ?? 'the workspace root (the work folder)',
        'workspace root',
      ),
    );
  return problems.filter((p): p is FolderProblem => p !== undefined);
}

/** Refuses to start, in one line naming the setting, when a work-folder setting names no folder. */
export function assertWorkFolders(config: ServeConfig): void {
  const [first] = workFolderProblems(config);
  if (first) throw new CliError(`${first.problem}: ${first.fix}`);
}
