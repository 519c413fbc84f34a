import type { JsonValue } from '@agentlane/contract';
import type {
  NativeFrameRecord,
  TranslatedEvent,
  TranslationContext,
  Translator,
} from '@agentlane/engine-kit';
import { frameRecords, translateRecords } from '../../test-support/trace';

export { readJsonl } from '../../test-support/trace';

export const CTX: TranslationContext = {
  threadId: 'thr_golden',
  runId: 'run_golden',
  turnId: 'turn_golden',
  provider: 'opencode',
};

/** Frames as the lane would store them: 1-based nativeSeq, a deterministic arrival time. */
export function records(frames: JsonValue[]): NativeFrameRecord[] {
  return frameRecords(CTX.runId, frames);
}

export function translateAll<S extends JsonValue>(translator: Translator<S>, input: NativeFrameRecord[]) {
  const { events, state } = translateRecords(translator, input, CTX);
  return { events: events.map((e) => e.event), state };
}

/** What the lane would keep: the latest revision per key, in first-emission order. */
export function latestByKey(events: TranslatedEvent[]): Map<string, TranslatedEvent> {
  const map = new Map<string, TranslatedEvent>();
  for (const event of events) map.set(event.key, event);
  return map;
}
