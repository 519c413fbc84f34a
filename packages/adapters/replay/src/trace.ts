import { readFileSync } from 'node:fs';
import type { JsonValue } from '@agentlane/contract';

/** Reads a recorded native trace: one JSON frame per line; a bad line is an error naming its line number. */
export function readTrace(path: string): JsonValue[] {
  const frames: JsonValue[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (line.trim().length === 0) return;
      try {
        frames.push(JSON.parse(line) as JsonValue);
      } catch (error) {
        throw new Error(`${path}:${index + 1}: not a JSON line (${(error as Error).message})`);
      }
    });
  return frames;
}

/** The gap between frames when a trace says nothing about time. */
const DEFAULT_GAP_MS = 25;
/** No single pause longer than this, so a recording with a long idle stretch still plays briskly. */
const MAX_GAP_MS = 2_000;

/**
 * When each frame happened, in ms from the first: `t` of wire records (`{t, dir, msg}`), the time OpenCode
 * encodes in its event ids (`evt_` + 12 hex digits = ms·4096 + counter), else a fixed gap.
 */
export function frameTimes(frames: JsonValue[]): number[] {
  const times: number[] = [];
  let last = 0;
  let firstId: number | null = null;
  frames.forEach((frame, index) => {
    let at: number | null = null;
    const obj = typeof frame === 'object' && frame !== null && !Array.isArray(frame) ? frame : null;
    if (obj && typeof obj.t === 'number') at = obj.t;
    else if (obj && typeof obj.id === 'string') {
      const match = /^evt_([0-9a-f]{12})/.exec(obj.id);
      if (match?.[1]) {
        const ms = Math.floor(Number.parseInt(match[1], 16) / 4096);
        firstId ??= ms;
        at = ms - firstId;
      }
    }
    const next = at === null || at < last ? last + (index === 0 ? 0 : DEFAULT_GAP_MS) : at;
    times.push(Math.min(next, last + MAX_GAP_MS));
    last = times[times.length - 1] ?? last;
  });
  return times;
}
