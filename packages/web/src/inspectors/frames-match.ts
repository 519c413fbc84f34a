import type { NativeFrameView, StoredRow } from '@agentlane/client';

/** One native frame of a run as `GET /sessions/:id/runs/:runId/frames` returns it (the contract's shape). */
export type NativeFrame = NativeFrameView;

export type MatchedBy = 'identity' | 'payload ids' | 'time' | 'none';

export interface FrameMatch {
  by: MatchedBy;
  /** The ids searched for (identity or payload), empty for time. */
  ids: string[];
  frames: NativeFrame[];
}

const IDENTITY_KEYS = ['nativeEventId', 'nativeMessageId', 'nativePartId'] as const;

/** String values of the payload's `…Id` fields (toolCallId, approvalId, messageId, …), nested ones too. */
export function payloadIds(payload: unknown, out = new Set<string>()): string[] {
  if (payload && typeof payload === 'object') {
    for (const [key, value] of Object.entries(payload)) {
      if (typeof value === 'string' && /Id$/.test(key) && value.length >= 3) out.add(value);
      else if (value && typeof value === 'object' && key !== 'artifact') payloadIds(value, out);
    }
  }
  return [...out];
}

function frameText(frame: NativeFrame): string {
  return `${JSON.stringify(frame.frame)}\n${frame.raw?.text ?? ''}`;
}

function containing(frames: readonly NativeFrame[], ids: readonly string[]): NativeFrame[] {
  const needles = ids.map((id) => JSON.stringify(id));
  return frames.filter((f) => {
    const text = frameText(f);
    return needles.some((n) => text.includes(n));
  });
}

/**
 * The native frames an event came from. A canonical event names the engine's own ids in its identity,
 * and the frames carry them: those frames, when any do. Engines whose events carry no native ids (the
 * built-in one) still name their calls, messages and requests in the payload (`toolCallId`, …): the frames
 * carrying those. Failing both, the last frame received before the event was written (the lane translates
 * a frame as it is stored, so that frame is its source). The caller says which rule matched.
 */
export function matchFrames(row: StoredRow, frames: readonly NativeFrame[]): FrameMatch {
  const identity = row.event.identity as unknown as Record<string, string | undefined>;
  const ids = IDENTITY_KEYS.map((k) => identity[k]).filter((v): v is string => typeof v === 'string');
  if (ids.length > 0) {
    const found = containing(frames, ids);
    if (found.length > 0) return { by: 'identity', ids, frames: found };
  }
  const fromPayload = payloadIds(row.event.payload);
  if (fromPayload.length > 0) {
    const found = containing(frames, fromPayload);
    if (found.length > 0) return { by: 'payload ids', ids: fromPayload, frames: found };
  }
  const ts = Date.parse(row.event.ts);
  const before = frames.filter((f) => Date.parse(f.receivedAt) <= ts);
  const nearest = before.at(-1);
  if (nearest) return { by: 'time', ids: [], frames: [nearest] };
  return { by: 'none', ids: [], frames: [] };
}
