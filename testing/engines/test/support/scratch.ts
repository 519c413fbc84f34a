import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REMOVE_OPTIONS } from './fixture';

/** A data folder and a workspace for one test, removed by `cleanup` (run at the end, in reverse). */
export async function scratchDirs(prefix: string, cleanup: (() => Promise<void> | void)[]) {
  const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
  const work = await mkdtemp(join(tmpdir(), `${prefix}-work-`));
  cleanup.push(
    () => rm(dir, REMOVE_OPTIONS),
    () => rm(work, REMOVE_OPTIONS),
  );
  return { dir, work };
}
