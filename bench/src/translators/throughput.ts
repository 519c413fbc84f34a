import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { JsonValue } from '@agentlane/contract';
import type { NativeFrameRecord, TranslationContext, Translator } from '@agentlane/engine-kit';
import type { BenchResult } from '../types';

/** Milliseconds to translate every frame once, state threaded through and the run finished. */
function translateAll<S extends JsonValue>(
  translator: Translator<S>,
  ctx: TranslationContext,
  frames: JsonValue[],
): number {
  const records: NativeFrameRecord[] = frames.map((frame, i) => ({
    runId: ctx.runId,
    nativeSeq: i + 1,
    receivedAt: '2026-01-01T00:00:00.000Z',
    frame,
  }));
  let state = translator.initialState(ctx);
  let events = 0;
  const started = performance.now();
  for (const record of records) {
    const step = translator.translate(record, state, ctx);
    state = step.state;
    events += step.events.length;
  }
  events += translator.finish(state, ctx).events.length;
  if (events === 0) throw new Error('nothing translated');
  return performance.now() - started;
}

/** The best of `rounds` runs: the least disturbed measure of a pure function on a shared machine. */
function best<S extends JsonValue>(
  translator: Translator<S>,
  ctx: TranslationContext,
  frames: JsonValue[],
  rounds: number,
) {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < rounds; i++) min = Math.min(min, translateAll(translator, ctx, frames));
  return min;
}

export function readJsonl(path: string): JsonValue[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as JsonValue);
}

export interface TranslatorBench<S extends JsonValue> {
  translator: Translator<S>;
  ctx: TranslationContext;
  /** The recorded trace and its label in the result name. */
  fixture: { label: string; frames: JsonValue[] };
  /** Synthetic long streams: their size, how the size is named, and the frames. */
  streams: { sizes: number[]; unit: string; build: (size: number) => JsonValue[] };
  /** Prefix of every result name, e.g. "acp translator". */
  name: string;
}

/** Frames/s of a pure translator on a recorded trace (best of 20) and on long streams (best of 3). */
export function translatorThroughput<S extends JsonValue>(bench: TranslatorBench<S>): BenchResult[] {
  const { translator, ctx, fixture, streams, name } = bench;
  const fixtureMs = best(translator, ctx, fixture.frames, 20);
  const results: BenchResult[] = [
    {
      name: `${name}: ${fixture.label}`,
      unit: 'frames/s',
      value: Math.round(fixture.frames.length / (fixtureMs / 1000)),
      extra: `${fixture.frames.length} frames in ${fixtureMs.toFixed(2)} ms`,
    },
  ];
  for (const size of streams.sizes) {
    const frames = streams.build(size);
    const ms = best(translator, ctx, frames, 3);
    results.push({
      name: `${name}: ${size} ${streams.unit}`,
      unit: 'frames/s',
      value: Math.round(frames.length / (ms / 1000)),
      extra: `${frames.length} frames in ${ms.toFixed(1)} ms`,
    });
  }
  return results;
}

/**
 * {@link translatorThroughput} for an adapter's translator: its run context names `provider`, its recorded
 * trace is `fixture.path` under packages/adapters (e.g. `acp/test/__fixtures__/….jsonl`).
 */
export function adapterTranslatorThroughput<S extends JsonValue>(
  bench: Omit<TranslatorBench<S>, 'ctx' | 'fixture'> & {
    provider: string;
    fixture: { label: string; path: string };
  },
): BenchResult[] {
  const { provider, fixture, ...rest } = bench;
  const path = fileURLToPath(new URL(`../../../packages/adapters/${fixture.path}`, import.meta.url));
  return translatorThroughput({
    ...rest,
    ctx: { threadId: 't', runId: 'r', turnId: 'r', provider },
    fixture: { label: fixture.label, frames: readJsonl(path) },
  });
}
