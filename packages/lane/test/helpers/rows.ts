import type { CanonicalEvent } from '@agentlane/contract';

/** A `harness.warning` write of run `r` on `threadId`, whose message is its eventId: rows for hub tests. */
export function warning(threadId: string, id: string, seq = 1): { event: CanonicalEvent } {
  return {
    event: {
      schemaVersion: 1,
      eventId: id,
      seq,
      runId: 'r',
      threadId,
      turnId: 'r',
      ts: new Date(0).toISOString(),
      identity: { provider: 'test' },
      kind: 'harness.warning',
      payload: { code: 'c', message: id },
    } as CanonicalEvent,
  };
}
