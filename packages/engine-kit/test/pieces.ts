import type { SecretRedactor } from '../src/index';

/** Pushes the pieces one by one; returns what was emitted for each, then what flush() gave. */
export function streamed(
  redactor: SecretRedactor,
  pieces: string[],
): { outs: string[]; flushed: string; held: number[] } {
  const s = redactor.stream();
  const outs: string[] = [];
  const held: number[] = [];
  for (const p of pieces) {
    outs.push(s.push(p));
    held.push(s.heldChars);
  }
  return { outs, flushed: s.flush(), held };
}

/** A text cut at the given points (sorted, deduplicated, inside the text). */
export function cut(text: string, points: number[]): string[] {
  const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const p of at) {
    pieces.push(text.slice(from, p));
    from = p;
  }
  pieces.push(text.slice(from));
  return pieces;
}
