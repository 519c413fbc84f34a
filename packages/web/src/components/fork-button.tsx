import type { ForkRequest } from '@agentlane/client';
import { useState } from 'react';
import { client } from '../api';
import { useLiveThread } from '../live-thread';
import { threadHref } from '../use-route';

/**
 * Time travel: a new thread continuing from a point of this one (POST /sessions/:id/fork), then opens it.
 * The point is a checkpoint, or a finished run ("after this turn": the engine's own fork, or the run's last
 * checkpoint); an engine that cannot fork there says why, shown here.
 */
export function ForkButton({
  threadId,
  point,
  label = 'Continue in a new thread from here',
  compact = false,
}: {
  threadId: string;
  point: Omit<ForkRequest, 'title'>;
  label?: string;
  compact?: boolean;
}) {
  const { refresh } = useLiveThread();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const fork = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const { session } = await client.forkSession(threadId, point);
      refresh();
      window.location.hash = threadHref(session.id);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className={compact ? 'fork compact' : 'fork'}>
      <button type="button" className={compact ? 'link' : 'primary'} onClick={fork} disabled={busy}>
        {label}
      </button>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
