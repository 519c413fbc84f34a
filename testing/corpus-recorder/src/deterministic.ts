import { encodeTime } from 'ulid';

/**
 * The injected clock of a recorded turn: call n (0-based) returns `start + n * stepMs` as an ISO 8601
 * string with milliseconds. Written out so a runtime in another language can produce the same values.
 */
export interface ClockSpec {
  start: string;
  stepMs: number;
}

/** The injected id source: id n (0-based) is the ULID whose time is `startMs + n` and whose 16 random
 * characters are n in Crockford base 32, zero-padded. Valid, strictly increasing, reproducible. */
export interface IdSpec {
  startMs: number;
}

export function fixedClock(spec: ClockSpec): () => string {
  const start = Date.parse(spec.start);
  if (!Number.isFinite(start)) throw new Error(`clock start is not a date: ${spec.start}`);
  let n = 0;
  return () => new Date(start + spec.stepMs * n++).toISOString();
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function sequentialIds(spec: IdSpec): () => string {
  let n = 0;
  return () => {
    const i = n++;
    let tail = '';
    for (let v = i; v > 0; v = Math.floor(v / 32)) tail = CROCKFORD[v % 32] + tail;
    return encodeTime(spec.startMs + i, 10) + tail.padStart(16, '0');
  };
}
