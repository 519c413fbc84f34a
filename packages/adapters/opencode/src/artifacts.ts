import { createHash } from 'node:crypto';
import { type ArtifactWithPreview, MAX_PREVIEW_CHARS } from '@agentlane/contract';
import type { ArtifactContent } from '@agentlane/engine-kit';

/** Outputs above this many characters travel as an artifact with a preview instead of inline. */
export const INLINE_OUTPUT_LIMIT = 8 * 1024;

/** A content-addressed artifact: the id is the sha256, so the same content always yields the same ref. */
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
