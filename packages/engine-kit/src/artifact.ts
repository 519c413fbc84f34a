import { createHash } from 'node:crypto';
import { type ArtifactWithPreview, MAX_PREVIEW_CHARS } from '@agentlane/contract';
import type { ArtifactContent } from './translator.js';

/**
 * A content-addressed artifact for a translator: the id derives from the sha256 of the content, so
 * translating the same frame twice yields the same ref (the translator stays pure and re-translation is
 * idempotent). `stored` goes into TranslationStep.artifacts, `withPreview` into the event.
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
