import type { JsonValue } from '@agentlane/contract';
import type { RuntimeFrame } from '@agentlane/runtime';
import { CHILD_FRAMES } from './child-frames.js';
import { seen } from './cutoff-rows.js';
import type { FrameHandlers } from './frame-types.js';
import { OUTPUT_FRAMES } from './output-frames.js';
import { streamPart } from './parts.js';
import { childFrame } from './scope.js';
import { type Step, track, warnCounted } from './state.js';
import { TOOL_FRAMES } from './tool-frames.js';
import { TURN_FRAMES } from './turn-frames.js';

/** Every runtime frame kind → its handler. */
const FRAMES: FrameHandlers = {
  part: (step, f) => streamPart(step, f.step, f.part, f.cost),
  child: (step, f) => childFrame(step, f, runtimeFrame),
  ...TOOL_FRAMES,
  ...OUTPUT_FRAMES,
  ...TURN_FRAMES,
  ...CHILD_FRAMES,
};

/** One of the runtime's own frames (checked for the fields the handlers read) in this step's scope. */
export function runtimeFrame(step: Step, f: RuntimeFrame): void {
  track(step, (t) => seen(t, step.receivedAt));
  const handler = Object.hasOwn(FRAMES, f.rt) ? (FRAMES[f.rt] as (s: Step, f: RuntimeFrame) => void) : null;
  if (handler) handler(step, f);
  else
    warnCounted(step, 'builtin.unknown_frame', 'an unknown built-in engine frame', f as unknown as JsonValue);
}
