import { createHash } from 'node:crypto';

export { makeArtifact } from '@agentlane/engine-kit';

import { createTwoFilesPatch } from 'diff';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export interface UnifiedDiff {
  patch: string;
  additions: number;
  deletions: number;
}

/** ACP diffs carry whole file texts; the canonical event wants a unified diff and line counts. */
export function unifiedDiff(path: string, oldText: string | null, newText: string): UnifiedDiff {
  const patch = createTwoFilesPatch(
    oldText === null ? '/dev/null' : `a/${path.replace(/^\//, '')}`,
    `b/${path.replace(/^\//, '')}`,
    oldText ?? '',
    newText,
    undefined,
    undefined,
    { context: 3 },
  );
  let additions = 0;
  let deletions = 0;
  for (const line of patch.split('\n').slice(2)) {
    if (line.startsWith('+') && !line.startsWith('+++')) additions += 1;
    else if (line.startsWith('-') && !line.startsWith('---')) deletions += 1;
  }
  return { patch, additions, deletions };
}
