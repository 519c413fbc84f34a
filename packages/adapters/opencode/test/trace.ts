import { readFileSync } from 'node:fs';
import type { JsonValue } from '@agentlane/contract';
import type {
  NativeFrameRecord,
  TranslatedEvent,
  TranslationContext,
  Translator,
} from '@agentlane/engine-kit';

export const CTX: TranslationContext = {
  threadId: 'thr_golden',
  runId: 'run_golden',
  turnId: 'turn_golden',
  provider: 'opencode',
};

export function readJsonl(path: string): JsonValue[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as JsonValue);
}

/** Frames as the lane would store them: 1-based nativeSeq, a deterministic arrival time. */
export function records(frames: JsonValue[]): NativeFrameRecord[] {
  const base = Date.UTC(2026, 0, 1);
  return frames.map((frame, i) => ({
    runId: CTX.runId,
    nativeSeq: i + 1,
    receivedAt: new Date(base + (i + 1) * 10).toISOString(),
    frame,
  }));
}

export function translateAll<S extends JsonValue>(translator: Translator<S>, input: NativeFrameRecord[]) {
  let state = translator.initialState(CTX);
  const events: TranslatedEvent[] = [];
  for (const record of input) {
    const step = translator.translate(record, state, CTX);
    state = step.state;
    events.push(...step.events);
  }
  const last = translator.finish(state, CTX);
  events.push(...last.events);
  return { events, state: last.state };
}

/** What the lane would keep: the latest revision per key, in first-emission order. */
export function latestByKey(events: TranslatedEvent[]): Map<string, TranslatedEvent> {
  const map = new Map<string, TranslatedEvent>();
  for (const event of events) map.set(event.key, event);
  return map;
}
