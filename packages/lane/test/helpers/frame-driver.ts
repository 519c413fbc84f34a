import type { AuditableCall, JsonValue } from '@agentlane/contract';
import type { Translator } from '@agentlane/engine-kit';
import type { RunPipeline } from '../../src/internal';
import { createTestTranslator, type TestState } from './test-translator';

/** One frame as an engine would hand it to the lane: the parsed frame and, optionally, its wire text. */
export interface ScriptedFrame {
  frame: JsonValue;
  raw?: string | Uint8Array;
}

/** Plays frames into a pipeline the way a driver's `emit` does (all in one tick, like one chunk of output). */
export function playFrames(pipeline: RunPipeline, frames: readonly ScriptedFrame[]): void {
  for (const f of frames) pipeline.emit(f.frame, f.raw);
}

/**
 * A frame nested `depth` levels deep (arrays and objects alternating), built without recursion, with its
 * wire text: what a hostile or broken engine could send.
 */
export function deepFrame(depth: number): ScriptedFrame {
  let frame: JsonValue = 'bottom';
  for (let i = 0; i < depth - 1; i++) frame = i % 2 === 0 ? [frame] : { n: frame };
  frame = { t: 'deep', v: frame };
  let raw = '"bottom"';
  for (let i = 0; i < depth - 1; i++) raw = i % 2 === 0 ? `[${raw}]` : `{"n":${raw}}`;
  return { frame, raw: `{"t":"deep","v":${raw}}\n` };
}

/**
 * The test translator, plus `{ t: 'audit', text }` frames that surface one audit row carrying `text` (so a
 * test can see what reaches the audit ledger).
 */
export function createAuditingTranslator(): Translator<TestState> {
  const base = createTestTranslator();
  return {
    ...base,
    translate(record, state, ctx) {
      const f = record.frame as { t?: unknown; text?: unknown };
      if (f && typeof f === 'object' && f.t === 'audit') {
        const row = {
          record_id: `01J00000000000000000000${String(record.nativeSeq).padStart(3, '0')}`,
          turn_id: 't',
          payload: { text: String(f.text) },
        } as unknown as AuditableCall;
        return { state, events: [], audit: [row] };
      }
      return base.translate(record, state, ctx);
    },
  };
}
