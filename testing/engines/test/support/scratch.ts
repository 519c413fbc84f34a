import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A data folder and a workspace for one test, removed by `cleanup` (run at the end, in reverse). */
export async function scratchDirs(prefix: string, cleanup: (() => Promise<void> | void)[]) {
  const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
  const work = await mkdtemp(join(tmpdir(), `${prefix}-work-`));
  cleanup.push(
    () => rm(dir, { recursive: true, force: true }),
    () => rm(work, { recursive: true, force: true }),
  );
  return { dir, work };
}
