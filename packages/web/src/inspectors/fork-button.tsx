import { useState } from 'react';
import { client } from '../api';
import { useLiveThread } from '../live-thread';
import { threadHref } from '../use-route';

/** Time travel: a new thread continuing from this checkpoint (POST /sessions/:id/fork); opens it. */
export function ForkButton({ threadId, checkpointId }: { threadId: string; checkpointId: string }) {
  const { refresh } = useLiveThread();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const fork = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const { session } = await client.forkSession(threadId, { checkpointId });
      refresh();
      window.location.hash = threadHref(session.id);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="fork">
      <button type="button" className="primary" onClick={fork} disabled={busy}>
        Continue in a new thread from here
      </button>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
