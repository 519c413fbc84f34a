import { createHash } from 'node:crypto';
import { type CanonicalEvent, type JsonValue, SCHEMA_VERSION } from '@agentlane/contract';
import type { NativeFrameRecord, TranslationContext, Translator } from '@agentlane/engine-kit';
import { frameRecords, type Translated, translateRecords } from '../../test-support/trace';

export { readJsonl, type Translated } from '../../test-support/trace';

export const CTX: TranslationContext = {
  threadId: 'thr_golden',
  runId: 'run_golden',
  turnId: 'run_golden',
  provider: 'acp',
};

/** Frames as the lane stores them: 1-based nativeSeq and a deterministic arrival time (from `t` when recorded). */
export function records(frames: JsonValue[]): NativeFrameRecord[] {
  return frameRecords(CTX.runId, frames, (frame, i) => {
    const t = typeof frame === 'object' && frame !== null && !Array.isArray(frame) ? frame.t : undefined;
    return typeof t === 'number' ? t : (i + 1) * 10;
  });
}

export function translateAll<S extends JsonValue>(translator: Translator<S>, input: NativeFrameRecord[]) {
  return translateRecords(translator, input, CTX);
}

/** The envelope the lane adds (eventId = short sha256 of runId and key, as the lane derives it). */
export function envelope(items: Translated[], provider = 'acp'): CanonicalEvent[] {
  return items.map(({ event, receivedAt }, i) => {
    const digest = createHash('sha256').update(CTX.runId).update('\u0000').update(event.key).digest('hex');
    return {
      schemaVersion: SCHEMA_VERSION,
      eventId: `ev_${digest.slice(0, 32)}`,
      seq: i + 1,
      runId: CTX.runId,
      threadId: CTX.threadId,
      turnId: CTX.turnId,
      ts: receivedAt,
      identity: { provider, ...event.identity },
      kind: event.draft.kind,
      payload: event.draft.payload,
    } as CanonicalEvent;
  });
}
