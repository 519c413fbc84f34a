import type { ArtifactRef } from '@agentlane/contract';
import { useEffect, useState } from 'react';
import { client } from '../api';
import { CopyButton } from './copy-button';

const IMAGE_MAX_BYTES = 8 * 1024 * 1024;
const TEXT_PREVIEW_BYTES = 16 * 1024;

type Preview =
  | { kind: 'image'; url: string }
  | { kind: 'text'; text: string; cut: boolean }
  | { kind: 'none' };

function previewKind(contentType: string): 'image' | 'text' | 'none' {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type.startsWith('image/') && type !== 'image/svg+xml') return 'image';
  if (type.startsWith('text/') || /^application\/(json|x-ndjson|xml|yaml|x-yaml|javascript)$/.test(type))
    return 'text';
  return 'none';
}

/**
 * An artifact shown by its content type: images as images (fetched with the client, so a bearer token
 * works; SVG stays a link since it can carry script), text and JSON as the start of their text, anything else
 * as the link above it.
 */
export function ArtifactPreview({ artifact, name }: { artifact: ArtifactRef; name?: string }) {
  const [preview, setPreview] = useState<Preview>({ kind: 'none' });
  const [error, setError] = useState<string | undefined>();
  const kind = previewKind(artifact.contentType);

  useEffect(() => {
    if (kind === 'none' || (kind === 'image' && artifact.bytes > IMAGE_MAX_BYTES)) return;
    const controller = new AbortController();
    let url: string | undefined;
    const range =
      kind === 'text' && artifact.bytes > TEXT_PREVIEW_BYTES
        ? { start: 0, end: TEXT_PREVIEW_BYTES - 1 }
        : undefined;
    client
      .getArtifact(artifact.id, { signal: controller.signal, ...(range ? { range } : {}) })
      .then((content) => {
        if (kind === 'image') {
          url = URL.createObjectURL(new Blob([content.bytes as BlobPart], { type: artifact.contentType }));
          setPreview({ kind: 'image', url });
        } else {
          setPreview({ kind: 'text', text: content.text(), cut: range !== undefined });
        }
      })
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setError(e instanceof Error ? e.message : String(e));
      });
    return () => {
      controller.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [artifact.id, artifact.bytes, artifact.contentType, kind]);

  if (error) return <p className="error">Preview failed: {error}</p>;
  if (preview.kind === 'image')
    return <img className="artifact-image" src={preview.url} alt={name ?? `artifact ${artifact.id}`} />;
  if (preview.kind === 'text')
    return (
      <div className="copyable" data-testid="artifact-text">
        <pre className="code-block">
          {preview.text}
          {preview.cut ? '…' : ''}
        </pre>
        {!preview.cut && <CopyButton text={preview.text} label="Copy artifact" />}
      </div>
    );
  return null;
}
