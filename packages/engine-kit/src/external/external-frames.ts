import {
  type AuditableCall,
  type CanonicalEventDraft,
  type JsonValue,
  parseShape,
} from '@agentlane/contract';

/**
 * What an outside runtime sends for one of its runs (`POST /runs/:id/events`): canonical event drafts with
 * their keys, exactly as its translator-free turn drafts them, and the AuditableCall rows of its calls. Each
 * becomes one native frame of the run's source lane — `{ event }` or `{ audit }` — so the lane stores,
 * translates, revises and canonicalizes them like any engine's frames.
 */
export interface ExternalEventDraft {
  /** Stable within the run: the eventId is derived from (runId, key); the same key again is a revision. */
  key: string;
  kind: string;
  payload: JsonValue;
  /** Child session ids from the thread's root, for events of sub-agents. */
  namespace?: string[];
  identity?: {
    nativeSessionId?: string;
    nativeEventId?: string;
    nativeMessageId?: string;
    nativePartId?: string;
  };
}

export type ExternalFrame = { event: ExternalEventDraft } | { audit: AuditableCall };

export interface FrameIssue {
  /** Where in the frame, JSONPath-like (`$.event.payload.text`). */
  path: string;
  message: string;
}

/** Checks one event draft against the contract (kind known, payload of that kind, closed shape). */
export function checkExternalEvent(value: unknown): FrameIssue | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { path: '$', message: 'must be an object' };
  const { key, kind, payload, namespace, identity, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) return { path: `$.${extra}`, message: 'is not a field of an event draft' };
  if (typeof key !== 'string' || key.length === 0 || key.length > 512)
    return { path: '$.key', message: 'must be a string of 1 to 512 characters' };
  if (
    namespace !== undefined &&
    !(Array.isArray(namespace) && namespace.every((s) => typeof s === 'string' && s.length > 0))
  )
    return { path: '$.namespace', message: 'must be an array of child session ids' };
  if (identity !== undefined) {
    const ok =
      typeof identity === 'object' &&
      identity !== null &&
      !Array.isArray(identity) &&
      Object.entries(identity).every(
        ([k, v]) =>
          ['nativeSessionId', 'nativeEventId', 'nativeMessageId', 'nativePartId'].includes(k) &&
          typeof v === 'string',
      );
    if (!ok) return { path: '$.identity', message: 'must hold only native id strings' };
  }
  const draft = parseShape('CanonicalEventDraft', { kind, payload });
  if (!draft.ok) {
    const first = draft.errors[0];
    return { path: first?.path ?? '$', message: first?.message ?? 'is not a canonical event draft' };
  }
  return null;
}

/**
 * Checks one audit row against the contract's AuditableCall shape, and that it belongs to the run: its
 * session is the thread or one of its child sessions (`<thread>:…`), its turn the run or a child's turn
 * (`<run>:…`) — a runtime writes rows of its own turn only.
 */
export function checkExternalAudit(
  value: unknown,
  run: { threadId: string; runId: string },
): FrameIssue | null {
  const row = parseShape('AuditableCall', value);
  if (!row.ok) {
    const first = row.errors[0];
    return { path: first?.path ?? '$', message: first?.message ?? 'is not an AuditableCall row' };
  }
  const { session_id: session, turn_id: turn } = row.value;
  // A child is named after the colon: `<thread>:` alone made a child session with an empty name.
  const childOf = (id: string, parent: string) =>
    id.startsWith(`${parent}:`) && id.length > parent.length + 1;
  if (session !== run.threadId && !childOf(session, run.threadId))
    return {
      path: '$.session_id',
      message: `must be the thread ${run.threadId} or one of its child sessions`,
    };
  if (turn !== run.runId && !childOf(turn, run.runId))
    return { path: '$.turn_id', message: `must be the run ${run.runId} or a child turn of it` };
  return null;
}

export type { AuditableCall, CanonicalEventDraft };
