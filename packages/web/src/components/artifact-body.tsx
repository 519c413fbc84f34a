import type { ArtifactWithPreview } from '@agentlane/contract';
import { useState } from 'react';
import { client } from '../api';

/**
 * A bounded preview of a large payload, with the full content fetched lazily from the artifact route
 * only when the user asks for it.
 */
export function useArtifactText(artifact: ArtifactWithPreview | undefined) {
  const [full, setFull] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const load = async () => {
    if (!artifact) return;
    setLoading(true);
    try {
      setFull((await client.getArtifact(artifact.artifact.id)).text());
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setLoading(false);
    }
  };
  return {
    text: full ?? artifact?.preview ?? '',
    complete: full !== undefined || !artifact?.truncated,
    load,
    loading,
    error,
  };
}

export function LoadFullButton({
  state,
  label = 'Load full output',
}: {
  state: ReturnType<typeof useArtifactText>;
  label?: string;
}) {
  if (state.complete) return null;
  return (
    <>
      <button type="button" onClick={state.load} disabled={state.loading}>
        {state.loading ? 'Loading…' : label}
      </button>
      {state.error && <span className="error">{state.error}</span>}
    </>
  );
}
