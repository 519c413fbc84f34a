import {
  formatIssues,
  type JsonValue,
  parseAuditableCall,
  parseCanonicalEventDraft,
} from '@agentlane/contract';
import type { NativeFrameRecord } from '../native-frame.js';
import { DIAGNOSTIC_CODES } from '../translate/diagnostics.js';
import type { TranslatedEvent, TranslationContext, Translator } from '../translator.js';
import { GARBAGE_FRAMES, HARNESS_SAMPLES, truncationsOf } from './frames.js';
import { CONFORMANCE_CTX, eventsOf, type Pass, recordsOf, runPass } from './run-translator.js';

/** A translator and the recorded native sources (each one run) it is checked on. */
export interface ConformanceSubject<S extends JsonValue = JsonValue> {
  name: string;
  translator: Translator<S>;
  recordings: { name: string; frames: JsonValue[] }[];
  ctx?: TranslationContext;
}

/** Frames of a recording checked for truncation at most (spread over the recording). */
const SAMPLED_FRAMES = 40;
/** Points at which a recording is cut (prefix + finish) or resumed from JSON state. */
const CUTS = 8;

type Problems = string[];

function ctxOf(subject: ConformanceSubject): TranslationContext {
  return subject.ctx ?? { ...CONFORMANCE_CTX, provider: subject.translator.provider };
}

/** One translate call that must not throw and must produce only what the contract allows. */
function translateChecked<S extends JsonValue>(
  translator: Translator<S>,
  record: NativeFrameRecord,
  state: S,
  ctx: TranslationContext,
  label: string,
  problems: Problems,
): TranslatedEvent[] {
  try {
    const step = translator.translate(record, state, ctx);
    for (const e of step.events) {
      const r = parseCanonicalEventDraft(e.draft);
      if (!r.ok)
        problems.push(
          `${label}: ${e.draft.kind} outside the contract: ${formatIssues(r.errors.slice(0, 2))}`,
        );
    }
    for (const row of step.audit ?? [])
      if (!parseAuditableCall(row).ok) problems.push(`${label}: an audit row outside the contract`);
    JSON.stringify(step.state);
    return step.events;
  } catch (error) {
    problems.push(`${label}: threw ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
}

/** Garbage frames become harness.warning and truncated recorded frames do not throw, at any point. */
export function checkNeverThrows(subject: ConformanceSubject): Problems {
  const problems: Problems = [];
  const ctx = ctxOf(subject);
  for (const recording of subject.recordings) {
    const records = recordsOf(recording.frames, ctx.runId);
    const pass = runPass(subject.translator, records, ctx, { noFinish: true });
    const every = Math.max(1, Math.ceil(records.length / SAMPLED_FRAMES));
    for (let i = 0; i < records.length; i += every) {
      const record = records[i] as NativeFrameRecord;
      const state = pass.statesBefore[i] as JsonValue;
      for (const [j, frame] of GARBAGE_FRAMES.entries()) {
        const label = `${recording.name} garbage #${j} before frame ${record.nativeSeq}`;
        const events = translateChecked(
          subject.translator,
          { ...record, frame },
          state,
          ctx,
          label,
          problems,
        );
        if (!events.some((e) => e.draft.kind === 'harness.warning'))
          problems.push(`${label}: no harness.warning for ${JSON.stringify(frame).slice(0, 60)}`);
      }
      for (const [j, frame] of truncationsOf(record.frame).entries())
        translateChecked(
          subject.translator,
          { ...record, frame },
          state,
          ctx,
          `${recording.name} frame ${record.nativeSeq} cut #${j}`,
          problems,
        );
    }
  }
  return problems;
}

/** The same source gives the same steps every time, also when the state crosses JSON between steps. */
export function checkDeterministic(subject: ConformanceSubject): Problems {
  const problems: Problems = [];
  const ctx = ctxOf(subject);
  for (const recording of subject.recordings) {
    const records = recordsOf(recording.frames, ctx.runId);
    const first = text(runPass(subject.translator, records, ctx));
    if (text(runPass(subject.translator, records, ctx)) !== first)
      problems.push(`${recording.name}: a second translation differs from the first`);
    if (text(runPass(subject.translator, records, ctx, { viaJson: true })) !== first)
      problems.push(`${recording.name}: the state passed through JSON between steps changes the result`);
  }
  return problems;
}

/**
 * Splitting a recording in two (translate a prefix, keep the state as JSON, translate the rest later, as a
 * restarted lane does) gives the same events as one pass over it.
 */
export function checkResplit(subject: ConformanceSubject): Problems {
  const problems: Problems = [];
  const ctx = ctxOf(subject);
  for (const recording of subject.recordings) {
    const records = recordsOf(recording.frames, ctx.runId);
    const whole = JSON.stringify(eventsOf(runPass(subject.translator, records, ctx)));
    for (const cut of cutPoints(records.length)) {
      const head = runPass(subject.translator, records.slice(0, cut), ctx, { noFinish: true });
      const from = JSON.parse(JSON.stringify(head.finalState)) as JsonValue;
      const tail = runPass(subject.translator, records.slice(cut), ctx, { from });
      if (JSON.stringify([...eventsOf(head), ...eventsOf(tail)]) !== whole)
        problems.push(`${recording.name}: split after frame ${cut} gives other events than one pass`);
    }
  }
  return problems;
}

/** A well-formed frame of every harness kind is handled: no throw, never an unknown or bad frame warning. */
export function checkHarnessFrames(subject: ConformanceSubject): Problems {
  const problems: Problems = [];
  const ctx = ctxOf(subject);
  const frames = HARNESS_SAMPLES as unknown as JsonValue[];
  const records = recordsOf(frames, ctx.runId);
  let state = subject.translator.initialState(ctx);
  for (const record of records) {
    const label = `harness frame ${(record.frame as { harness: string }).harness}`;
    const events = translateChecked(subject.translator, record, state, ctx, label, problems);
    for (const e of events)
      if (e.draft.kind === 'harness.warning' && isUnhandledCode(e.draft.payload.code))
        problems.push(`${label}: ${e.draft.payload.code} (${e.draft.payload.message})`);
    state = subject.translator.translate(record, state, ctx).state;
  }
  return problems;
}

function isUnhandledCode(code: string): boolean {
  return code === DIAGNOSTIC_CODES.unknownHarnessFrame || code === DIAGNOSTIC_CODES.badHarnessFrame;
}

/** After finish(), of the whole recording and of prefixes cut anywhere, nothing opened is left open. */
export function checkClosedAtEnd(subject: ConformanceSubject): Problems {
  const problems: Problems = [];
  const ctx = ctxOf(subject);
  for (const recording of subject.recordings) {
    const records = recordsOf(recording.frames, ctx.runId);
    for (const cut of [records.length, ...cutPoints(records.length)]) {
      const pass = runPass(subject.translator, records.slice(0, cut), ctx);
      for (const open of leftOpen(eventsOf(pass)))
        problems.push(`${recording.name} cut after frame ${cut}: ${open} never closed`);
    }
  }
  return problems;
}

/** What opens and what closes it, by the payload field that names it. */
const PAIRS: Record<string, { closes: string; id: string }> = {
  'turn.started': { closes: 'turn.completed', id: '' },
  'message.started': { closes: 'message.completed', id: 'messageId' },
  'tool.started': { closes: 'tool.completed', id: 'toolCallId' },
  'approval.requested': { closes: 'approval.resolved', id: 'approvalId' },
  'question.requested': { closes: 'question.resolved', id: 'questionId' },
};

export function leftOpen(events: readonly TranslatedEvent[]): string[] {
  const open = new Map<string, string>();
  const nameOf = (e: TranslatedEvent, field: string) => {
    const payload = e.draft.payload as unknown as Record<string, unknown>;
    return `${(e.namespace ?? []).join('/')}|${field ? String(payload[field]) : ''}`;
  };
  for (const e of events) {
    const opens = PAIRS[e.draft.kind];
    if (opens) open.set(`${opens.closes}|${nameOf(e, opens.id)}`, `${e.draft.kind} ${e.key}`);
    const closes = Object.values(PAIRS).find((p) => p.closes === e.draft.kind);
    if (closes) open.delete(`${closes.closes}|${nameOf(e, closes.id)}`);
  }
  return [...open.values()];
}

/** Keys are unique within a step; a key seen again later is a revision: same kind, other content. */
export function checkEventKeys(subject: ConformanceSubject): Problems {
  const problems: Problems = [];
  const ctx = ctxOf(subject);
  for (const recording of subject.recordings) {
    const pass = runPass(subject.translator, recordsOf(recording.frames, ctx.runId), ctx);
    const seen = new Map<string, { kind: string; body: string }>();
    pass.steps.forEach((step, i) => {
      const inStep = new Set<string>();
      for (const e of step.events) {
        if (inStep.has(e.key))
          problems.push(`${recording.name} step ${i + 1}: key ${e.key} twice in one step`);
        inStep.add(e.key);
        const body = JSON.stringify(e.draft);
        const before = seen.get(e.key);
        if (before?.kind !== undefined && before.kind !== e.draft.kind)
          problems.push(`${recording.name}: key ${e.key} used for ${before.kind} and ${e.draft.kind}`);
        else if (before?.body === body)
          problems.push(`${recording.name}: key ${e.key} repeated with the same content`);
        seen.set(e.key, { kind: e.draft.kind, body });
      }
    });
  }
  return problems;
}

function cutPoints(length: number): number[] {
  const points = new Set<number>();
  for (let i = 1; i <= CUTS; i++) points.add(Math.max(1, Math.floor((length * i) / (CUTS + 1))));
  return [...points].filter((p) => p < length);
}

function text(pass: Pass<unknown>): string {
  return JSON.stringify({ steps: pass.steps, state: pass.finalState });
}

/**
 * translate() and finish() never change the state they are given: the lane keeps the prior state when a step
 * is dropped, and the checks above re-use earlier states. Every state is deep-frozen before it is passed on,
 * so a write to it (or to anything it shares with the next state) throws; its text must also stay the same.
 */
export function checkPure(subject: ConformanceSubject): Problems {
  const problems: Problems = [];
  const ctx = ctxOf(subject);
  for (const recording of subject.recordings) {
    let state = deepFreeze(subject.translator.initialState(ctx));
    const records = recordsOf(recording.frames, ctx.runId);
    for (const [i, record] of [...records, null].entries()) {
      const before = JSON.stringify(state);
      const label = `${recording.name} ${record ? `frame ${record.nativeSeq}` : 'finish'}`;
      try {
        const step = record
          ? subject.translator.translate(record, state, ctx)
          : subject.translator.finish(state, ctx);
        if (JSON.stringify(state) !== before) problems.push(`${label}: changed the state it was given`);
        state = deepFreeze(step.state);
      } catch (error) {
        problems.push(`${label} (#${i}): ${error instanceof Error ? error.message : String(error)}`);
        break;
      }
    }
  }
  return problems;
}

function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const x of Array.isArray(v) ? v : Object.values(v)) stack.push(x);
  }
  return value;
}
