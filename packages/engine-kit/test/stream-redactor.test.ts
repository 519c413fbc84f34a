import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIN_HELD, REDACTED, SecretRedactor } from '../src/index';
import { cut, streamed } from './pieces';

const KEY = 'sk-proj-SECRETKEY0123456789';

describe('StreamRedactor', () => {
  it('replaces a secret split across two pieces', () => {
    const r = new SecretRedactor([KEY], { headers: false });
    const { outs, flushed } = streamed(r, [`the key is ${KEY.slice(0, 12)}`, `${KEY.slice(12)} ok`]);
    expect(outs[0]).toBe('the key is ');
    expect(outs.join('') + flushed).toBe(`the key is ${REDACTED} ok`);
    expect(outs.join('') + flushed).not.toContain(KEY.slice(0, 12));
  });

  it('does not delay ordinary text: a piece ending like a key begins goes out as it was cut', () => {
    const s = new SecretRedactor([KEY], { headers: false }).stream();
    expect(s.push('hello world, ')).toBe('hello world, ');
    // Fewer than MIN_HELD characters of a key's start are not held (the pieces keep their cut).
    expect(s.push('see sk-')).toBe('see sk-');
    expect(s.heldChars).toBe(0);
    expect(s.push('lint docs.')).toBe('lint docs.');
    // MIN_HELD or more are.
    expect(s.push(` ${KEY.slice(0, MIN_HELD)}`)).toBe(' ');
    expect(s.heldChars).toBe(MIN_HELD);
    expect(s.flush()).toBe(KEY.slice(0, MIN_HELD));
  });

  it('a key whose first characters went out is replaced from there on, also across several pieces', () => {
    const s = new SecretRedactor([KEY], { headers: false }).stream();
    const pieces = ['key: sk-', KEY.slice(3, 10), KEY.slice(10, 20), `${KEY.slice(20)} done`];
    const out = pieces.map((p) => s.push(p)).join('') + s.flush();
    expect(out).toBe(`key: sk-${REDACTED} done`);
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

  it('lets no secret out, however any text is cut; uncut, it gives what the one-shot redactor gives', () => {
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
          const joined = outs.join('') + flushed;
          // No secret gets out whole; at most MIN_HELD − 1 characters of a key's start may (a cut there).
          for (const s of secrets) expect(joined).not.toContain(s);
          for (const s of secrets) expect(whole).not.toContain(s);
          // Uncut, the stream gives what the one-shot redactor gives.
          expect(streamed(redactor, [text]).outs.join('') + streamed(redactor, [text]).flushed).toBe(whole);
          const longest = Math.max(...secrets.map((s) => s.length));
          for (const h of held) expect(h).toBeLessThan(longest);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
