import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type CanonicalEvent, type JsonValue, SCHEMA_VERSION } from '@agentlane/contract';
import type {
  NativeFrameRecord,
  TranslatedEvent,
  TranslationContext,
  Translator,
} from '@agentlane/engine-kit';

export const CTX: TranslationContext = {
  threadId: 'thr_golden',
  runId: 'run_golden',
  turnId: 'run_golden',
  provider: 'acp',
};

export function readJsonl(path: string): JsonValue[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as JsonValue);
}

/** Frames as the lane stores them: 1-based nativeSeq and a deterministic arrival time (from `t` when recorded). */
export function records(frames: JsonValue[]): NativeFrameRecord[] {
  const base = Date.UTC(2026, 0, 1);
  return frames.map((frame, i) => {
    const t = typeof frame === 'object' && frame !== null && !Array.isArray(frame) ? frame.t : undefined;
    const offset = typeof t === 'number' ? t : (i + 1) * 10;
    return { runId: CTX.runId, nativeSeq: i + 1, receivedAt: new Date(base + offset).toISOString(), frame };
  });
}

export interface Translated {
  event: TranslatedEvent;
  receivedAt: string;
}

export function translateAll<S extends JsonValue>(translator: Translator<S>, input: NativeFrameRecord[]) {
  let state = translator.initialState(CTX);
  const events: Translated[] = [];
  const artifacts = new Map<string, string | Uint8Array>();
  for (const record of input) {
    const step = translator.translate(record, state, CTX);
    state = step.state;
    for (const event of step.events) events.push({ event, receivedAt: record.receivedAt });
    for (const a of step.artifacts ?? []) artifacts.set(a.ref.id, a.content);
  }
  const last = translator.finish(state, CTX);
  const lastAt = input.at(-1)?.receivedAt ?? new Date(0).toISOString();
  for (const event of last.events) events.push({ event, receivedAt: lastAt });
  return { events, state: last.state, artifacts };
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
