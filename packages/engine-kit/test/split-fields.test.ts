import type { JsonValue } from '@agentlane/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, SecretRedactor, SplitFieldRedactor } from '../src/index';
import { cut } from './pieces';

/** A token with no mark (BEARER alone would not take it) and no part that reads like a name or a scheme. */
const TOKEN = 'QZ7xK9wV3mN8pL2rT6yH';

/** Each text as one frame `{ params: { text } }` of one run, in order: what is stored of each text. */
function stored(texts: string[], redactor = new SecretRedactor([])): string[] {
  const split = new SplitFieldRedactor(redactor);
  return texts.map((text) => {
    const { frame } = split.json({ params: { text } });
    return (frame as { params: { text: string } }).params.text;
  });
}

/** Whether any 4 characters of the token are in the text. */
function showsToken(text: string): boolean {
  for (let i = 0; i + 4 <= TOKEN.length; i++) if (text.includes(TOKEN.slice(i, i + 4))) return true;
  return false;
}

describe('SplitFieldRedactor: a credential header split across two frames', () => {
  it('does not store the token of a header whose scheme a frame cut (`Bear` | `er <token>`)', () => {
    const out = stored([`curl -H "Authorization: Bear`, `er ${TOKEN}" https://x`]);
    expect(out[1]).toBe(`er ${REDACTED}" https://x`);
    // Each frame redacted on its own keeps it: what this class is for.
    expect(new SecretRedactor([]).text(`er ${TOKEN}" https://x`)).toContain(TOKEN);
  });

  it('does not store the value of a header whose name a frame cut', () => {
    expect(stored(['see Author', `ization: Basic ${TOKEN}== ok`])[1]).toBe(`ization: Basic ${REDACTED} ok`);
    expect(stored(['{"x-api', `-key":"${TOKEN}","n":1}`])[1]).toBe(`-key":"${REDACTED}","n":1}`);
    expect(stored(['api_key', `=${TOKEN}&b=2`])[1]).toBe(`=${REDACTED}&b=2`);
  });

  it('replaces a token that goes on over many frames, however long, and stops where it ends', () => {
    const parts = Array.from({ length: 12 }, () => TOKEN.repeat(3));
    const out = stored(['Authorization: Bearer ', ...parts, ' then prose', 'More text.']);
    expect(out.slice(1, 13)).toEqual(parts.map(() => REDACTED));
    expect(out.slice(13)).toEqual([' then prose', 'More text.']);
  });

  it('replaces a token a frame ends in, however short yet', () => {
    expect(stored([`Bearer ${TOKEN.slice(0, 4)}`, `${TOKEN.slice(4)} x`])).toEqual([
      `Bearer ${REDACTED}`,
      `${REDACTED} x`,
    ]);
  });

  it('reads each field on its own: another field between does not break, nor continue, the header', () => {
    const split = new SplitFieldRedactor(new SecretRedactor([]));
    const a = split.json({ a: 'Authorization: Bear', b: 'er not-a-token1234' });
    expect(a).toMatchObject({ frame: { b: 'er not-a-token1234' }, continued: [] });
    const b = split.json({ b: 'x', a: `er ${TOKEN}` });
    expect(b).toEqual({
      frame: { b: 'x', a: `er ${REDACTED}` },
      continued: [[`er ${TOKEN}`, `er ${REDACTED}`]],
    });
  });

  it('catches the header when another stream’s frame comes between the two halves in the same field', () => {
    const out = stored(['Authorization: Bear', 'hello from the other stream', `er ${TOKEN} rest`]);
    expect(out[2]).toBe(`er ${REDACTED} rest`);
  });

  it('leaves frames alone that no header runs into', () => {
    const texts = ['plain text', 'the bearer of', ' good news', 'Authorization: see the docs.', ' Next.'];
    const out = stored(texts);
    expect(out.slice(0, 3)).toEqual(texts.slice(0, 3));
    expect(out[4]).toBe(' Next.');
  });

  it('whatever the cuts, no frame stores 4 characters of the token (a property)', () => {
    const headers = [
      `Authorization: Bearer ${TOKEN}`,
      `proxy-authorization: Basic ${TOKEN}`,
      `"authorization": "Bearer ${TOKEN}"`,
      `\\"x-api-key\\":\\"${TOKEN}\\"`,
      `x-goog-api-key=${TOKEN}`,
      `apikey: ${TOKEN}`,
      `curl -H 'Bearer ${TOKEN}-1'`,
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...headers),
        fc.array(fc.nat(200), { maxLength: 6 }),
        fc.constantFrom('', 'text before ', '{"a":1} '),
        (header, points, before) => {
          const text = `${before}${header} and after`;
          const out = stored(cut(text, points));
          expect(out.filter(showsToken)).toEqual([]);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('stores frames as SecretRedactor.json does when no header is split (same values, same objects)', () => {
    const redactor = new SecretRedactor(['sk-known-secret-value-123']);
    const split = new SplitFieldRedactor(redactor);
    const frames: JsonValue[] = [
      { t: 'delta', text: 'key sk-known-secret-value-123' },
      { t: 'delta', headers: { 'x-api-key': 'abc' }, list: ['Authorization: Bearer tok_1234567890'] },
      { t: 'delta', text: 'nothing' },
    ];
    for (const f of frames) {
      const { frame, continued } = split.json(f);
      expect(frame).toEqual(redactor.json(f));
      expect(continued).toEqual([]);
    }
    const clean = { t: 'delta', text: 'nothing' };
    expect(split.json(clean).frame).toBe(clean);
  });
});
