import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, SecretRedactor } from '../src/index';

const KEY = 'sk-proj-SECRETKEY0123456789';

/** Pushes the pieces one by one; returns what was emitted for each, then what flush() gave. */
function streamed(
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
function cut(text: string, points: number[]): string[] {
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

describe('StreamRedactor', () => {
  it('replaces a secret split across two pieces', () => {
    const r = new SecretRedactor([KEY], { headers: false });
    const { outs, flushed } = streamed(r, [`the key is ${KEY.slice(0, 12)}`, `${KEY.slice(12)} ok`]);
    expect(outs[0]).toBe('the key is ');
    expect(outs.join('') + flushed).toBe(`the key is ${REDACTED} ok`);
    expect(outs.join('') + flushed).not.toContain(KEY.slice(0, 12));
  });

  it('does not delay ordinary text', () => {
    const s = new SecretRedactor([KEY], { headers: false }).stream();
    expect(s.push('hello world, ')).toBe('hello world, ');
    expect(s.push('see sk-')).toBe('see ');
    expect(s.heldChars).toBe(3);
    expect(s.push('lint docs.')).toBe('sk-lint docs.');
    expect(s.flush()).toBe('');
  });

  it('emits on flush a start of a secret that never completed', () => {
    const s = new SecretRedactor([KEY], { headers: false }).stream();
    expect(s.push(`x ${KEY.slice(0, 10)}`)).toBe('x ');
    expect(s.flush()).toBe(KEY.slice(0, 10));
  });

  it('passes text through when there are no secrets', () => {
    const s = new SecretRedactor([], { headers: false }).stream();
    expect(s.push('sk-')).toBe('sk-');
    expect(s.flush()).toBe('');
  });

  it('gives for any cut of any text what the one-shot redactor gives for the whole', () => {
    // A small alphabet, so that secrets overlap, repeat and start one another often.
    const char = fc.constantFrom('a', 'b', 'c', 'x');
    const secret = fc.array(char, { minLength: 8, maxLength: 12 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(
        fc.array(secret, { minLength: 1, maxLength: 3 }),
        fc.array(
          fc.oneof(
            char,
            secret,
            secret.map((s) => s.slice(0, 6)),
          ),
          { maxLength: 30 },
        ),
        fc.array(fc.nat(), { maxLength: 12 }),
        (secrets, parts, points) => {
          const text = parts.join('');
          const redactor = new SecretRedactor(secrets, { headers: false });
          const { outs, flushed, held } = streamed(redactor, cut(text, points));
          const whole = redactor.text(text);
          expect(outs.join('') + flushed).toBe(whole);
          const longest = Math.max(...secrets.map((s) => s.length));
          for (const h of held) expect(h).toBeLessThan(longest);
          for (const s of secrets) expect(whole).not.toContain(s);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
