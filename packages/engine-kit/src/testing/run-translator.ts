import type { AuditableCall, JsonValue } from '@agentlane/contract';
import type { NativeFrameRecord } from '../native-frame.js';
import type { TranslatedEvent, TranslationContext, Translator } from '../translator.js';

export const CONFORMANCE_CTX: TranslationContext = {
  threadId: 'thr_conformance',
  runId: 'run_conformance',
  turnId: 'run_conformance',
  provider: 'conformance',
};

/** Frames as the lane stores them: 1-based nativeSeq, an arrival time 10 ms a frame after 2026-01-01. */
export function recordsOf(frames: readonly JsonValue[], runId = CONFORMANCE_CTX.runId): NativeFrameRecord[] {
  const base = Date.UTC(2026, 0, 1);
  return frames.map((frame, i) => ({
    runId,
    nativeSeq: i + 1,
    receivedAt: new Date(base + (i + 1) * 10).toISOString(),
    frame,
  }));
}

/** Everything a pass over a source produced, step by step (the last step is finish()). */
export interface Pass<S> {
  steps: { events: TranslatedEvent[]; audit: AuditableCall[]; artifactIds: string[] }[];
  /** The state before each frame (index i: before records[i]) and, last, before finish(). */
  statesBefore: S[];
  finalState: S;
}

export interface PassOptions {
  /** Pass the state through JSON text between steps (what a checkpoint or another process would see). */
  viaJson?: boolean;
  /** Start from this state instead of the initial one. */
  from?: JsonValue;
  /** Skip finish() (a pass over a prefix that goes on later). */
  noFinish?: boolean;
}

/** Translates `records` as the lane does: translate each in order, then finish. */
export function runPass<S extends JsonValue>(
  translator: Translator<S>,
  records: readonly NativeFrameRecord[],
  ctx: TranslationContext,
  options: PassOptions = {},
): Pass<S> {
  let state = (options.from as S | undefined) ?? translator.initialState(ctx);
  const pass: Pass<S> = { steps: [], statesBefore: [], finalState: state };
  const take = (step: ReturnType<Translator<S>['finish']>) => {
    state = options.viaJson ? (JSON.parse(JSON.stringify(step.state)) as S) : step.state;
    pass.steps.push({
      events: step.events,
      audit: step.audit ?? [],
      artifactIds: (step.artifacts ?? []).map((a) => a.ref.id),
    });
  };
  for (const record of records) {
    pass.statesBefore.push(state);
    take(translator.translate(record, state, ctx));
  }
  pass.statesBefore.push(state);
  if (!options.noFinish) take(translator.finish(state, ctx));
  pass.finalState = state;
  return pass;
}

export function eventsOf(pass: Pass<unknown>): TranslatedEvent[] {
  return pass.steps.flatMap((s) => s.events);
}
