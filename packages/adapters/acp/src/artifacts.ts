import { createHash } from 'node:crypto';
import { type ArtifactWithPreview, MAX_PREVIEW_CHARS } from '@agentlane/contract';
import type { ArtifactContent } from '@agentlane/engine-kit';
import { createTwoFilesPatch } from 'diff';

/**
 * A content-addressed artifact: the id derives from the sha256 of the content, so translating the same
 * frame twice yields the same ref (the translator stays pure and re-translation is idempotent).
 */
export function makeArtifact(
  content: string | Uint8Array,
  contentType: string,
): { stored: ArtifactContent; withPreview: ArtifactWithPreview } {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const ref = { id: `sha256-${sha256}`, bytes: bytes.byteLength, sha256, contentType };
  const text = typeof content === 'string' ? content : `(${bytes.byteLength} bytes of ${contentType})`;
  const preview = text.slice(0, MAX_PREVIEW_CHARS);
  return {
    stored: { ref, content },
    withPreview: { artifact: ref, preview, truncated: preview.length < text.length },
  };
}

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
