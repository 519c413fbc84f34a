import type { JsonValue } from '@agentlane/contract';
import type { NativeFrameRecord, TranslationContext, Translator } from '@agentlane/engine-kit';
import fc from 'fast-check';

export interface FrameFuzzReport {
  frames: number;
  throws: number;
  /** Junk frames (not JSON objects at all) that produced no harness.warning. */
  junkWithoutWarning: number;
  junk: number;
  warnings: number;
  firstThrow?: { frame: JsonValue; error: string };
}

/** A real frame with one value somewhere replaced, one key dropped, or its shape swapped for another type. */
const mutate = (seed: JsonValue): fc.Arbitrary<JsonValue> =>
  fc
    .tuple(
      fc.nat(),
      fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>,
      fc.constantFrom('replace', 'drop', 'retype'),
    )
    .map(([n, value, how]) => {
      const copy = structuredClone(seed) as JsonValue;
      const objects: Record<string, JsonValue>[] = [];
      const walk = (v: JsonValue) => {
        if (v && typeof v === 'object' && !Array.isArray(v)) {
          objects.push(v);
          for (const child of Object.values(v)) walk(child);
        } else if (Array.isArray(v)) for (const child of v) walk(child);
      };
      walk(copy);
      const target = objects[n % Math.max(1, objects.length)];
      const keys = target ? Object.keys(target) : [];
      const key = keys[n % Math.max(1, keys.length)];
      if (!target || key === undefined) return value;
      if (how === 'drop') delete target[key];
      else if (how === 'retype') target[key] = Array.isArray(target[key]) ? 'x' : [target[key] as JsonValue];
      else target[key] = value;
      return copy;
    });

/** Frames that are no engine frame at all: numbers, strings, arrays, null. */
const junk = fc.oneof(
  fc.integer(),
  fc.string(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.boolean(),
);

/**
 * Feeds `count` fuzzed native frames (mutated real frames, real frames, junk) through any pure translator,
 * in segments of 50 with the state threaded and `finish` at the end of each: counts throws (must be 0) and
 * junk frames that became no harness.warning.
 */
export function fuzzTranslator<S extends JsonValue>(
  translator: Translator<S>,
  seeds: readonly JsonValue[],
  count: number,
  seed = 15,
): FrameFuzzReport {
  const frameArb = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .constantFrom(...seeds)
        .chain(mutate)
        .map((frame) => ({ frame, junk: false })),
    },
    { weight: 2, arbitrary: fc.constantFrom(...seeds).map((frame) => ({ frame, junk: false })) },
    { weight: 2, arbitrary: junk.map((frame) => ({ frame: frame as JsonValue, junk: true })) },
  );
  const report: FrameFuzzReport = { frames: 0, throws: 0, junkWithoutWarning: 0, junk: 0, warnings: 0 };
  const segments = Math.ceil(count / 50);
  for (let s = 0; s < segments; s++) {
    const frames = fc.sample(frameArb, { numRuns: Math.min(50, count - s * 50), seed: seed + s });
    const ctx: TranslationContext = {
      threadId: 'thr_fuzz',
      runId: `run_${s}`,
      turnId: `run_${s}`,
      provider: translator.provider,
    };
    let state: S;
    try {
      state = translator.initialState(ctx);
    } catch {
      report.throws++;
      continue;
    }
    frames.forEach(({ frame, junk: isJunk }, i) => {
      report.frames++;
      const record: NativeFrameRecord = {
        runId: ctx.runId,
        nativeSeq: i + 1,
        receivedAt: new Date(1_700_000_000_000 + i).toISOString(),
        frame,
      };
      try {
        const step = translator.translate(record, state, ctx);
        state = step.state;
        const warned = step.events.some((e) => e.draft.kind === 'harness.warning');
        if (warned) report.warnings++;
        if (isJunk) {
          report.junk++;
          if (!warned) report.junkWithoutWarning++;
        }
      } catch (error) {
        report.throws++;
        report.firstThrow ??= { frame, error: String(error) };
      }
    });
    try {
      translator.finish(state, ctx);
    } catch (error) {
      report.throws++;
      report.firstThrow ??= { frame: 'finish', error: String(error) };
    }
  }
  return report;
}
