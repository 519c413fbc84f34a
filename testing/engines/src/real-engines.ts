import { fileURLToPath } from 'node:url';
import { ensurePinnedFolder } from './pinned-install';

/**
 * The pinned real engines live in testing/engines/real, a folder with its own package.json and lockfile
 * outside the npm workspaces: the project's `npm ci` never downloads them (they were most of its time);
 * `.ci/run` and the first engine test that needs them install them there with `npm ci`.
 */
export const realEnginesDir = fileURLToPath(new URL('../real/', import.meta.url));

/**
 * Installs the pinned engines (`npm ci` in testing/engines/real) unless what is there was installed from
 * the current lockfile; returns null when they are there, or why not. AGENTLANE_REAL_ENGINES=skip never
 * installs (the engine tests are then skipped, or fail under CI=true).
 */
export function ensureRealEngines(): string | null {
  return ensurePinnedFolder({
    dir: realEnginesDir,
    label: 'the pinned real engines',
    skipEnv: 'AGENTLANE_REAL_ENGINES',
  });
}
