import { activeRun, type TimelineState, type TimelineView } from '@agentlane/client';
import { useState } from 'react';
import { client } from '../api';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Starting and cancelling runs of a thread, with whether one is running, a request is out, or one failed. */
export function useRunControl(state: TimelineState, view: TimelineView, threadId: string) {
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const run = activeRun(state);
  const running = run !== undefined || view.items.some((i) => i.type === 'turn' && i.status === 'running');

  /** run.create (with a fresh Idempotency-Key); resolves true once the run exists. */
  const start = async (body: { prompt: string; mode?: string; model?: string }): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await client.createRun(threadId, body, { idempotencyKey: crypto.randomUUID() });
      return true;
    } catch (err) {
      setError(messageOf(err));
      return false;
    } finally {
      setBusy(false);
    }
  };

  /** run.cancel of the active run, else of the latest turn still running. */
  const cancel = async () => {
    const runId =
      run?.runId ?? [...view.items].reverse().find((i) => i.type === 'turn' && i.status === 'running')?.runId;
    if (!runId) return;
    try {
      await client.cancelRun(runId);
    } catch (err) {
      setError(messageOf(err));
    }
  };

  return { running, busy, error, start, cancel };
}
