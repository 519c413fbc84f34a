import { type CanonicalEvent, type JsonValue, SCHEMA_VERSION } from '@agentlane/contract';
import type { TranslatedEvent, Translator } from '@agentlane/engine-kit';
import { deriveEventId } from '@agentlane/lane/internal';
import type { EventWrite } from '@agentlane/store';

/** A minimal translator for the benchmarks: one native frame `{ i, text }` → one message.delta. */
export function benchTranslator(): Translator<number> {
  return {
    provider: 'bench',
    initialState: () => 0,
    translate(record, state) {
      const f = record.frame as { i?: number; text?: string };
      const events: TranslatedEvent[] = [
        {
          key: `d${record.nativeSeq}`,
          draft: {
            kind: 'message.delta',
            payload: { messageId: 'm1', partId: `p${f.i ?? 0}`, delta: f.text ?? '' },
          },
        },
      ];
      return { state: state + 1, events };
    },
    finish: (state) => ({ state, events: [] }),
  };
}

/**
 * The pause between single frames of the idle measurement, and between the samples of the disk's floors
 * printed beside it: a sync after a 5 ms pause costs more than one after 1 ms on this machine's disk
 * (p50 0.42–0.49 against 0.29–0.38 ms), so the floor is measured at the idle lane's own cadence.
 */
export const IDLE_GAP_MS = 5;

export const DELTA_TEXT = 'The quick brown fox jumps over the lazy dog. ';

export function benchFrame(i: number): JsonValue {
  return { i, text: DELTA_TEXT };
}

/**
 * The rows the baselines insert: the very events the lane builds from benchFrame(i) (stored as native seq
 * i + 1), with the lane's eventIds (a short sha256 of runId and the translator key, so they land at random
 * places of the (event_id, revision) index, as the lane's do) and the same envelope, seq and payload.
 */
export function benchEvents(threadId: string, runId: string, from: number, count: number): EventWrite[] {
  const out: EventWrite[] = [];
  const ts = new Date().toISOString();
  for (let k = 0; k < count; k++) {
    const i = from + k;
    out.push({
      event: {
        schemaVersion: SCHEMA_VERSION,
        eventId: deriveEventId(runId, `d${i + 1}`),
        seq: i + 1,
        runId,
        threadId,
        turnId: runId,
        ts,
        identity: { provider: 'bench' },
        kind: 'message.delta',
        payload: { messageId: 'm1', partId: `p${i}`, delta: DELTA_TEXT },
      } as CanonicalEvent,
    });
  }
  return out;
}

export function percentile(sorted: Float64Array | number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] as number;
}

export function sortedCopy(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}
