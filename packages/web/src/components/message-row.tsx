import type { MessageItem } from '@agentlane/client';
import type { ArtifactRef } from '@agentlane/contract';
import { useMemo, useState } from 'react';
import { client } from '../api';
import { messageText } from '../message-text';
import { CopyButton } from './copy-button';
import { Markdown } from './markdown';

/** The full text of an offloaded message, once the user asks for it. */
function useFullText(artifact: ArtifactRef | undefined) {
  const [full, setFull] = useState<{ id: string; text: string } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const load = () => {
    if (!artifact) return;
    setLoading(true);
    client
      .getArtifact(artifact.id)
      .then((content) => setFull({ id: artifact.id, text: content.text() }))
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
      .finally(() => setLoading(false));
  };
  const text = full && artifact && full.id === artifact.id ? full.text : undefined;
  return { text, load, loading, error };
}

/** Where a message is cut: how much is shown, the way to the rest. */
function TruncationNote({
  shown,
  artifact,
  state,
}: {
  shown: string;
  artifact: ArtifactRef;
  state: ReturnType<typeof useFullText>;
}) {
  const bytes = new TextEncoder().encode(shown).length;
  return (
    <p className="message-truncated muted" data-testid="message-truncated">
      Truncated: showing {bytes.toLocaleString()} of {artifact.bytes.toLocaleString()} bytes.{' '}
      <button type="button" onClick={state.load} disabled={state.loading}>
        {state.loading ? 'Loading…' : 'Show full text'}
      </button>{' '}
      <a href={client.artifactUrl(artifact.id)} target="_blank" rel="noreferrer">
        Open full text
      </a>
      {state.error && <span className="error"> {state.error}</span>}
    </p>
  );
}

/**
 * A message. An answer too large for its completed event (the lane moved the text to an artifact and left a
 * preview) shows its streamed text when that is all of it, else what it has, marked as cut, with the full
 * text one click away.
 */
export function MessageRow({ item, offloaded }: { item: MessageItem; offloaded?: ArtifactRef | undefined }) {
  const shown = useMemo(() => messageText(item, offloaded), [item, offloaded]);
  const full = useFullText(shown.truncated);
  const text = full.text ?? shown.text;
  return (
    <div className={`message ${item.role}`} data-surface="message">
      <span className="role">
        {item.role === 'user' ? 'You' : item.role === 'assistant' ? 'Assistant' : 'System'}
        {item.status !== 'streaming' && text && !(shown.truncated && !full.text) && (
          <CopyButton text={text} label="Copy message" />
        )}
      </span>
      {item.role === 'user' ? (
        <p className="prompt">{text}</p>
      ) : (
        <Markdown text={text} streaming={item.status === 'streaming'} />
      )}
      {shown.truncated && full.text === undefined && (
        <TruncationNote shown={shown.text} artifact={shown.truncated} state={full} />
      )}
    </div>
  );
}
