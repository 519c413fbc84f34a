import {
  CAPABILITY_FLAGS,
  type HarnessErrorPayload,
  type JsonObject,
  normalizeNegotiatedCapabilities,
  type TurnStartedPayload,
} from '@agentlane/contract';
import type { HarnessFrame } from '../harness-frame.js';
import { DIAGNOSTIC_CODES } from './diagnostics.js';
import { compact, isObject } from './narrow.js';

export type HarnessKind = HarnessFrame['harness'];
export type HarnessFrameOf<K extends HarnessKind> = Extract<HarnessFrame, { harness: K }>;

/** One handler per harness frame kind: a translator that misses one does not compile. */
export type HarnessHandlers<Step> = {
  [K in HarnessKind]: (step: Step, frame: HarnessFrameOf<K> & JsonObject) => void;
};

/** What a translator's step can do with a frame it cannot use. */
export interface Warns {
  warn(code: string, message: string, detail?: JsonObject): void;
}

/**
 * Dispatches a harness frame (isHarnessFrame was true) to its handler, after checking its fields: a frame of
 * an unknown kind or with a field of the wrong type becomes a harness.warning, never a throw in a handler.
 */
export function dispatchHarnessFrame<Step extends Warns>(
  step: Step,
  frame: JsonObject,
  handlers: HarnessHandlers<Step>,
): void {
  const kind = frame.harness;
  if (typeof kind !== 'string' || !Object.hasOwn(FIELDS, kind)) {
    step.warn(DIAGNOSTIC_CODES.unknownHarnessFrame, 'an unknown harness frame', frame);
    return;
  }
  const problem = fieldProblem(frame, FIELDS[kind as HarnessKind]);
  if (problem) {
    step.warn(DIAGNOSTIC_CODES.badHarnessFrame, `a ${kind} harness frame with ${problem}`, frame);
    return;
  }
  const handler = handlers[kind as HarnessKind] as (step: Step, frame: JsonObject) => void;
  handler(step, kind === 'session.bound' ? withFullCapabilities(frame) : frame);
}

/**
 * session.bound with a capability map every flag of which is a boolean, as session.started needs: a map
 * with flags missing or of the wrong type is read as the contract reads one (those flags false).
 */
function withFullCapabilities(frame: JsonObject): JsonObject {
  const caps = frame.capabilities as Record<string, unknown>;
  if (CAPABILITY_FLAGS.every((flag) => typeof caps[flag] === 'boolean')) return frame;
  return { ...frame, capabilities: normalizeNegotiatedCapabilities(caps) };
}

export type FieldType =
  | 'string'
  | 'number'
  | 'boolean'
  | 'object'
  | 'nullable-number'
  | 'nullable-string'
  | 'array';
/** What one field of a frame must be: its JSON type, whether it must be there, the values it may take. */
export type FieldRule = { type: FieldType; required?: boolean; oneOf?: readonly string[] };
export type FieldRules = Record<string, FieldRule>;

const OUTCOMES = ['completed', 'failed', 'cancelled'] as const;

/** The fields of each kind as harness-frame.ts declares them (required ones marked). */
const FIELDS: Record<HarnessKind, FieldRules> = {
  'session.bound': {
    origin: { type: 'string', required: true, oneOf: ['new', 'load', 'resume', 'fork'] },
    generation: { type: 'number', required: true },
    capabilities: { type: 'object', required: true },
    nativeSessionId: { type: 'string' },
    agent: { type: 'object' },
    cwd: { type: 'string' },
    protocolVersion: { type: 'string' },
  },
  'turn.started': {
    prompt: { type: 'string', required: true },
    parentRunId: { type: 'string' },
    model: { type: 'string' },
    mode: { type: 'string' },
  },
  'approval.answered': {
    approvalId: { type: 'string', required: true },
    outcome: { type: 'string', required: true, oneOf: ['selected', 'cancelled'] },
    optionId: { type: 'string' },
    answeredBy: { type: 'string' },
  },
  'question.answered': {
    questionId: { type: 'string', required: true },
    outcome: { type: 'string', required: true, oneOf: ['answered', 'declined', 'cancelled'] },
    choiceIds: { type: 'array' },
    text: { type: 'string' },
    answeredBy: { type: 'string' },
  },
  'turn.cancel_requested': { requestedBy: { type: 'string' } },
  'engine.exited': {
    code: { type: 'nullable-number' },
    signal: { type: 'nullable-string' },
    stderrTail: { type: 'string' },
  },
  'engine.error': {
    message: { type: 'string', required: true },
    fatal: { type: 'boolean', required: true },
  },
  'frame.dropped': {
    reason: { type: 'string', required: true },
    message: { type: 'string', required: true },
  },
  'turn.ended': {
    outcome: { type: 'string', required: true, oneOf: OUTCOMES },
    error: { type: 'string' },
  },
};

/** The first field of `frame` that breaks its rule, said in a few words; null when every field fits. */
export function fieldProblem(frame: JsonObject, rules: FieldRules): string | null {
  for (const [name, rule] of Object.entries(rules)) {
    const value = frame[name];
    if (value === undefined) {
      if (rule.required) return `no ${name}`;
      continue;
    }
    if (!fits(value, rule.type)) return `${name} not a ${rule.type}`;
    if (rule.oneOf && !rule.oneOf.includes(value as string)) return `${name} "${String(value).slice(0, 40)}"`;
  }
  return null;
}

function fits(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'nullable-number':
      return value === null || typeof value === 'number';
    case 'nullable-string':
      return value === null || typeof value === 'string';
    default:
      return typeof value === type;
  }
}

/** turn.started's payload from the frame (the prompt agentlane sent, the run's parent, model and mode). */
export function turnStartedPayload(frame: HarnessFrameOf<'turn.started'>): TurnStartedPayload {
  return compact({
    prompt: frame.prompt,
    parentRunId: frame.parentRunId,
    model: frame.model,
    mode: frame.mode,
  });
}

/** How much of the engine's stderr an engine.exited error carries. */
const STDERR_TAIL_CHARS = 2000;

/** The fatal harness.error of an engine whose process exited during the turn. */
export function engineExitedError(
  frame: HarnessFrameOf<'engine.exited'>,
  engine: string,
): HarnessErrorPayload {
  return compact({
    code: DIAGNOSTIC_CODES.engineExited,
    message: `${engine} exited during the turn (code ${frame.code ?? 'none'}, signal ${frame.signal ?? 'none'})`,
    fatal: true,
    detail: frame.stderrTail ? frame.stderrTail.slice(-STDERR_TAIL_CHARS) : undefined,
  });
}

/** The harness.error of an engine failure the harness reported. */
/** The harness.warning every translator writes for a native frame the lane did not store. */
export function warnFrameDropped(step: Warns, frame: HarnessFrameOf<'frame.dropped'>): void {
  const detail = isObject(frame.detail) ? (frame.detail as JsonObject) : {};
  step.warn(DIAGNOSTIC_CODES.frameDropped, frame.message, { ...detail, reason: frame.reason });
}

export function engineErrorPayload(frame: HarnessFrameOf<'engine.error'>): HarnessErrorPayload {
  return compact({
    code: DIAGNOSTIC_CODES.engineError,
    message: frame.message,
    fatal: frame.fatal,
    detail: frame.detail,
  });
}
