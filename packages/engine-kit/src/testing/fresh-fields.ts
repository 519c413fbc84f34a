import type { JsonValue } from '@agentlane/contract';
import type { NativeFrameRecord } from '../native-frame.js';
import type { TranslatedEvent, TranslationContext, Translator } from '../translator.js';

/**
 * The fields of the objects and arrays in `state` that no earlier state had (`seen` holds those): what one
 * translation step built anew. A step that copies a map of every tool call builds one field per call, so a
 * translator whose steps stay under a bound whatever the size of the run is linear in its frames.
 */
export function freshFields(state: unknown, seen: WeakSet<object>): number {
  let fields = 0;
  const stack: unknown[] = [state];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || seen.has(v)) continue;
    seen.add(v);
    const values = Array.isArray(v) ? v : Object.values(v);
    fields += values.length;
    for (const x of values) stack.push(x);
  }
  return fields;
}

/**
 * Translates `records` as the lane does (each frame, then finish) and says the most fields one step built
 * anew (see freshFields): what a scale test compares between a small and a large run.
 */
export function translateMeasured<S extends JsonValue>(
  translator: Translator<S>,
  records: readonly NativeFrameRecord[],
  ctx: TranslationContext,
): { events: TranslatedEvent[]; maxFresh: number } {
  let state = translator.initialState(ctx);
  const seen = new WeakSet<object>();
  freshFields(state, seen);
  let maxFresh = 0;
  const events: TranslatedEvent[] = [];
  for (const record of records) {
    const step = translator.translate(record, state, ctx);
    state = step.state;
    maxFresh = Math.max(maxFresh, freshFields(state, seen));
    events.push(...step.events);
  }
  events.push(...translator.finish(state, ctx).events);
  return { events, maxFresh };
}
