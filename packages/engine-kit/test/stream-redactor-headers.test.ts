import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_HEADER_HELD, MIN_HELD, REDACTED, SecretRedactor } from '../src/index';
import { cut, streamed } from './pieces';

/** What came out for the pieces in all (flush included), and what was held after each. */
function pushed(
  redactor: SecretRedactor,
  pieces: string[],
): { outs: string[]; joined: string; held: number[] } {
  const { outs, flushed, held } = streamed(redactor, pieces);
  return { outs, joined: outs.join('') + flushed, held };
}

const KEYS = ['QK7ZQK7Z99', 'ZZW3R8VV1234'];

/**
 * Pieces of header-shaped text: names, separators, schemes, tokens, delimiters, keys and their starts, so that
 * headers form, break off, nest in quotes and hold keys. `Bearer` is spelled so only (see the case law below).
 */
const HEADER_PARTS = [
  'Authorization',
  'authorization',
  'proxy-',
  'x-api-key',
  'X-Goog-Api-Key',
  'api_key',
  'apikey',
  'api-key',
  ':',
  '=',
  ' ',
  '  ',
  '\t',
  '\n',
  '\u00a0',
  '"',
  "'",
  '\\',
  'Bearer',
  'Basic',
  'abc',
  '123',
  'tok_1234567890',
  '-',
  '.',
  ',',
  ';',
  '&',
  '}',
  '/',
  '+',
  '==',
  REDACTED,
  'x',
  '_',
  'a',
  'key',
];
const headerText = (extra: string[] = []) =>
  fc.array(fc.constantFrom(...HEADER_PARTS, ...extra), { maxLength: 40 }).map((parts) => parts.join(''));

describe('StreamRedactor with header-shaped credentials', () => {
  const headers = new SecretRedactor([]);

  it('replaces a header split inside its scheme, its value or its name as the whole text would be', () => {
    const cases: string[][] = [
      ['Authorization: Bea', 'rer abc123def456'],
      ['x-api-key: sk-ab', 'cdef123456\n'],
      ['{"api_key": "abc', 'def"}'],
      ['Autho', 'rization: Basic dXNlcjpwYXNz'],
      ["curl -H 'Bear", "er tok_12345678' https://h"],
      ['header: Bearer tok_1', '234567890abcdef, next'],
    ];
    for (const pieces of cases) {
      const whole = headers.text(pieces.join(''));
      expect(whole).toContain(REDACTED);
      expect(pushed(headers, pieces).joined).toBe(whole);
    }
    const { outs } = pushed(headers, ['Authorization: Bea', 'rer abc123def456']);
    // The name goes out at once; the undecided value is held.
    expect(outs[0]).toBe('Authorization: ');
  });

  it('keeps ordinary text and its cuts: a name, a separator or a short start of `Bearer` goes out as it came', () => {
    const s = headers.stream();
    expect(s.push('see the Author')).toBe('see the Author');
    expect(s.push('ization docs; the api_key')).toBe('ization docs; the api_key');
    expect(s.heldChars).toBe(0);
    expect(s.push(' in the file. The bea')).toBe(' in the file. The bea');
    expect(s.push('ver is here.')).toBe('ver is here.');
    expect(s.flush()).toBe('');
  });

  it('a `Bearer` cut in its first characters: the rest is written as `Bearer`, only the case can differ', () => {
    const { joined } = pushed(headers, ['token: bea', 'rer tok_1234567890 ok']);
    expect(joined).toBe(`token: bearer ${REDACTED} ok`);
    expect(headers.text('token: bearer tok_1234567890 ok')).toBe(`token: Bearer ${REDACTED} ok`);
  });

  it('holds at most MAX_HEADER_HELD characters of a long value, and lets none of it out', () => {
    const cases = [
      ['Authorization: Bearer ', ' end'],
      ['api_key=', ', end'],
      ['x-api-key: "', '" end'],
      ['Bearer ', ' end'],
    ];
    for (const [head, tail] of cases) {
      const token = 'T0'.repeat(1000);
      const { joined, held } = pushed(headers, [
        head as string,
        ...cut(token, [7, 300, 301, 1500]),
        tail as string,
      ]);
      expect(joined).not.toContain('T0T0');
      expect(joined.endsWith(tail as string)).toBe(true);
      for (const h of held) expect(h).toBeLessThanOrEqual(MAX_HEADER_HELD);
    }
  });

  it('flushes what is held: an undecided value at the end is decided as the end of the text', () => {
    expect(pushed(headers, ['api_key=abc', '123']).joined).toBe(`api_key=${REDACTED}`);
    expect(pushed(headers, ["authorization='"]).joined).toBe(`authorization='${REDACTED}`);
    expect(pushed(headers, ['the Bearer ', 'abc']).joined).toBe('the Bearer abc');
  });

  it('values only (`headers: false`) leaves header-shaped text alone, as before', () => {
    const values = new SecretRedactor(KEYS, { headers: false });
    expect(pushed(values, ['Authorization: Bea', 'rer abc123def456']).joined).toBe(
      'Authorization: Bearer abc123def456',
    );
  });

  it('for any split of a text with headers, the joined output is the redaction of the whole', () => {
    fc.assert(
      fc.property(
        headerText(),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        (text, points, errorText) => {
          const redactor = new SecretRedactor([], { errorText });
          const { joined, held } = pushed(redactor, cut(text, points));
          expect(joined).toBe(redactor.text(text));
          for (const h of held) expect(h).toBeLessThanOrEqual(MAX_HEADER_HELD);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('any spelling of `Bearer`: the same up to the letter case of a cut word start', () => {
    fc.assert(
      fc.property(
        headerText(['bearer', 'BEARER', 'b', 'e', 'r', 'B']),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        (text, points, errorText) => {
          const redactor = new SecretRedactor([], { errorText });
          expect(pushed(redactor, cut(text, points)).joined.toLowerCase()).toBe(
            redactor.text(text).toLowerCase(),
          );
          // Uncut, exactly the same.
          expect(pushed(redactor, [text]).joined).toBe(redactor.text(text));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('with keys in the headers: no key gets out whole, and the redaction of the whole but for a cut key start', () => {
    fc.assert(
      fc.property(
        headerText([...KEYS, 'QK7ZQK', 'ZZW3R8V', 'QK']),
        fc.array(fc.nat(), { maxLength: 12 }),
        (text, points) => {
          const redactor = new SecretRedactor(KEYS);
          const whole = redactor.text(text);
          const any = pushed(redactor, cut(text, points)).joined;
          for (const k of KEYS) expect(any).not.toContain(k);
          // A cut in a key's first MIN_HELD − 1 characters lets them out (MIN_HELD); any other cut changes nothing.
          const starts = new Set<number>();
          for (const k of KEYS)
            for (let p = text.indexOf(k); p >= 0; p = text.indexOf(k, p + 1))
              for (let d = 1; d < MIN_HELD; d++) starts.add(p + d);
          const clean = points.map((p) => p % (text.length + 1)).filter((p) => !starts.has(p));
          expect(pushed(redactor, cut(text, clean)).joined).toBe(whole);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
