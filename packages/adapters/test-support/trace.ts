// Test support shared by the adapters' translator tests (golden traces, property tests). Test-only: the
// adapters import it from their test folders, never from src.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonValue } from '@agentlane/contract';
import type {
  NativeFrameRecord,
  TranslatedEvent,
  TranslationContext,
  Translator,
} from '@agentlane/engine-kit';

/** The JSON values of a JSONL file, blank lines skipped. */
export function readJsonl(path: string): JsonValue[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as JsonValue);
}

/**
 * Frames as the lane stores them: 1-based nativeSeq and a deterministic arrival time, `offsetMs` after
 * 2026-01-01 (by default 10 ms a frame).
 */
export function frameRecords(
  runId: string,
  frames: JsonValue[],
  offsetMs: (frame: JsonValue, index: number) => number = (_, i) => (i + 1) * 10,
): NativeFrameRecord[] {
  const base = Date.UTC(2026, 0, 1);
  return frames.map((frame, i) => ({
    runId,
    nativeSeq: i + 1,
    receivedAt: new Date(base + offsetMs(frame, i)).toISOString(),
    frame,
  }));
}

export interface Translated {
  event: TranslatedEvent;
  receivedAt: string;
}

/**
 * Runs a translator over records as the lane does (translate each, then finish): every event with the arrival
 * time of the frame that produced it (the last frame's for those of `finish`), the final state, the artifacts.
 */
export function translateRecords<S extends JsonValue>(
  translator: Translator<S>,
  input: NativeFrameRecord[],
  ctx: TranslationContext,
) {
  let state = translator.initialState(ctx);
  const events: Translated[] = [];
  const artifacts = new Map<string, string | Uint8Array>();
  for (const record of input) {
    const step = translator.translate(record, state, ctx);
    state = step.state;
    for (const event of step.events) events.push({ event, receivedAt: record.receivedAt });
    for (const a of step.artifacts ?? []) if ('content' in a) artifacts.set(a.ref.id, a.content);
  }
  const last = translator.finish(state, ctx);
  const lastAt = input.at(-1)?.receivedAt ?? new Date(0).toISOString();
  for (const event of last.events) events.push({ event, receivedAt: lastAt });
  return { events, state: last.state, artifacts };
}

/** The recorded native traces of a fixtures folder (`*.jsonl`, not the expected outputs), for the suites. */
export function recordingsIn(dir: string): { name: string; frames: JsonValue[] }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl') && !f.includes('.expected.'))
    .sort()
    .map((f) => ({ name: f, frames: readJsonl(join(dir, f)) }));
}
