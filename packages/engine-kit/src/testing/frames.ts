import {
  CAPABILITY_FLAGS,
  type JsonObject,
  type JsonValue,
  type NegotiatedCapabilities,
} from '@agentlane/contract';
import type { HarnessFrame } from '../harness-frame.js';
import { isObject } from '../translate/narrow.js';

/** Values no engine sends: each must become a harness.warning (never a throw, never silence). */
export const GARBAGE_FRAMES: readonly JsonValue[] = [
  null,
  true,
  0,
  -1.5,
  '',
  'garbage',
  [],
  [1, { harness: 'turn.started' }],
  {},
  { junk: 1 },
  { harness: 'no.such.frame' },
  { harness: 5 },
  { harness: 'turn.started' },
  { harness: 'approval.answered', outcome: 'selected' },
  { harness: 'engine.error', message: 5, fatal: 'yes' },
  { harness: 'session.bound', origin: 'sideways', generation: 'one', capabilities: [] },
  { rt: 'part', step: 1 },
  { rt: 'child' },
  { jsonrpc: '2.0' },
  { type: 5, properties: 'x' },
  { dir: 'agent->client', msg: null },
  { a: { b: { c: { d: { e: [[[[null]]]] } } } } },
];

const ALL_CAPABILITIES = Object.fromEntries(
  CAPABILITY_FLAGS.map((f) => [f, false]),
) as NegotiatedCapabilities;

/** One well-formed frame of every harness kind, as the lane writes them. */
export const HARNESS_SAMPLES: readonly (HarnessFrame & JsonObject)[] = [
  {
    harness: 'session.bound',
    origin: 'new',
    generation: 1,
    nativeSessionId: 'conformance-session',
    capabilities: ALL_CAPABILITIES,
  },
  { harness: 'turn.started', prompt: 'hello' },
  {
    harness: 'approval.answered',
    approvalId: 'conformance-approval',
    outcome: 'selected',
    optionId: 'allow',
    answeredBy: 'user',
  },
  {
    harness: 'question.answered',
    questionId: 'conformance-question',
    outcome: 'answered',
    choiceIds: [],
    text: 'yes',
    answeredBy: 'user',
  },
  { harness: 'turn.cancel_requested', requestedBy: 'user' },
  { harness: 'engine.exited', code: 1, signal: null, stderrTail: 'boom' },
  { harness: 'engine.error', message: 'the engine failed', fatal: false },
  {
    harness: 'frame.dropped',
    reason: 'frame.too_deep',
    message: 'a frame was dropped',
    detail: { maxDepth: 256 },
  },
  { harness: 'turn.ended', outcome: 'completed' },
];

/** How many variants one recorded frame yields at most. */
const VARIANTS_PER_FRAME = 24;

/**
 * A recorded frame cut short: each key (top level and one level down) removed, set to null, or (strings)
 * cut in half. What a truncated or partly written frame looks like once parsed.
 */
export function truncationsOf(frame: JsonValue): JsonValue[] {
  if (!isObject(frame)) return [];
  const out: JsonValue[] = [];
  for (const [key, value] of Object.entries(frame)) {
    out.push(without(frame, key), { ...frame, [key]: null });
    if (typeof value === 'string' && value.length > 1)
      out.push({ ...frame, [key]: value.slice(0, value.length >> 1) });
    if (isObject(value))
      for (const inner of Object.keys(value)) {
        out.push(
          { ...frame, [key]: without(value, inner) },
          { ...frame, [key]: { ...value, [inner]: null } },
        );
      }
    if (out.length >= VARIANTS_PER_FRAME) break;
  }
  return out.slice(0, VARIANTS_PER_FRAME);
}

function without(object: JsonObject, key: string): JsonObject {
  const { [key]: _, ...rest } = object;
  return rest;
}
