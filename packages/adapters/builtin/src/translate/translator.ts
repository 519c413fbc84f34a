import { formatIssues, parseAuditableCall, parseCanonicalEventDraft } from '@agentlane/contract';
import {
  dispatchHarnessFrame,
  finishStep,
  frameKey,
  isHarnessFrame,
  isObject,
  type NativeFrameRecord,
  type TranslationStep,
  type Translator,
} from '@agentlane/engine-kit';
import type { RuntimeFrame } from '@agentlane/runtime';
import { closeOpen, endOpenTools } from './close.js';
import { runtimeFrameProblem } from './frame-check.js';
import { runtimeFrame } from './frames.js';
import { HARNESS } from './harness.js';
import { BUILTIN_PROVIDER } from './provider-id.js';
import { initialState, newStep, type RuntimeTranslatorState, warnCounted } from './state.js';

/**
 * The built-in engine's pure translator: AI SDK stream parts and the runtime's own records → canonical events.
 * Text and reasoning blocks are keyed by (step, block id) because the SDK restarts block ids every step.
 */
export const runtimeTranslator: Translator<RuntimeTranslatorState> = {
  provider: BUILTIN_PROVIDER,
  initialState,
  translate(record: NativeFrameRecord, state: RuntimeTranslatorState) {
    // A frame the translator cannot read (a field missing or of the wrong type) must not stop the run: the
    // step it would have made is dropped whole (state untouched) and the frame becomes a harness.warning.
    let problem: string;
    try {
      const out = translateFrame(record, state);
      const bad = invalidOutput(out);
      if (bad === null) return out;
      problem = bad;
    } catch (err) {
      problem = err instanceof Error ? err.message : String(err);
    }
    const step = newStep(state, frameKey('f', record.nativeSeq), record.receivedAt);
    const f = record.frame;
    const rt = isObject(f) ? f.rt : undefined;
    warnCounted(
      step,
      'builtin.bad_frame',
      `native frame ${record.nativeSeq} is malformed: ${problem.slice(0, 300)}`,
      {
        nativeSeq: record.nativeSeq,
        ...(typeof rt === 'string' ? { rt: rt.slice(0, 100) } : {}),
      },
    );
    return step.result();
  },
  finish(state: RuntimeTranslatorState) {
    const step = finishStep(state, { runId: '' }, '');
    if (!step.state.ended) endOpenTools(step, 'failed', 'source ended without turn.ended');
    closeOpen(step);
    if (!step.state.ended) {
      step.state = { ...step.state, ended: true };
      step.emit('turn.completed', {
        kind: 'turn.completed',
        payload: { stopReason: 'error', rawStopReason: 'source ended without turn.ended' },
      });
    }
    return step.result();
  },
};

function translateFrame(record: NativeFrameRecord, state: RuntimeTranslatorState) {
  const step = newStep(state, frameKey('f', record.nativeSeq), record.receivedAt);
  const f = record.frame;
  if (isHarnessFrame(f)) {
    dispatchHarnessFrame(step, f, HARNESS);
    return step.result();
  }
  if (!isObject(f) || typeof f.rt !== 'string') {
    warnCounted(
      step,
      'builtin.bad_frame',
      `native frame ${record.nativeSeq} is not a built-in engine frame`,
      f,
    );
    return step.result();
  }
  const problem = runtimeFrameProblem(f);
  if (problem !== null) throw new MalformedFrame(problem);
  runtimeFrame(step, f as unknown as RuntimeFrame);
  return step.result();
}

/** A built-in frame missing a field the translator reads (reported like any other malformed frame). */
class MalformedFrame extends Error {}

/**
 * What a malformed frame that did not throw would still get wrong: an event or a ledger row outside the
 * contract (a field of the wrong type). Checked with the contract's own parsers (well under 1 µs an event).
 */
function invalidOutput(out: TranslationStep<RuntimeTranslatorState>): string | null {
  for (const e of out.events) {
    const r = parseCanonicalEventDraft(e.draft);
    if (!r.ok) return `${e.draft.kind} ${formatIssues(r.errors.slice(0, 3))}`;
  }
  for (const row of out.audit ?? []) {
    const r = parseAuditableCall(row);
    if (!r.ok) return `audit row ${formatIssues(r.errors.slice(0, 3))}`;
  }
  return null;
}
