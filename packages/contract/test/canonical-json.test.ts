import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprintSessionState, type SessionState, sha256Hex } from '../src/index';

// Test vectors from RFC 8785 (JSON Canonicalization Scheme).

/** An IEEE-754 double from its 16 hex digits, as RFC 8785 Appendix B lists them. */
function double(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('canonicalJson (RFC 8785)', () => {
  // RFC 8785 Appendix B: number serialization samples.
  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('serializes the double 0x%s as %s', (hex, expected) => {
    expect(canonicalJson(double(hex))).toBe(expected);
  });

  it.each([
    ['NaN', double('7fffffffffffffff')],
    ['Infinity', double('7ff0000000000000')],
  ])('refuses %s (not representable in JSON)', (_name, value) => {
    expect(() => canonicalJson(value)).toThrow();
  });

  it('sorts keys by UTF-16 code units (RFC 8785 section 3.2.3)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // Compared as text: JSON.parse would move the integer-like key "1" first again.
    // The emoji (a surrogate pair, 0xD83D...) sorts before U+FB33 although its code point is larger.
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('canonicalizes the RFC 8785 section 3.2.2 example (numbers, escapes, literals)', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        ' "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('escapes control characters as the RFC requires and leaves other characters literal', () => {
    expect(canonicalJson('\b\f\n\r\t\u0001\u001f"\\/\u007f\u00e9')).toBe(
      '"\\b\\f\\n\\r\\t\\u0001\\u001f\\"\\\\/\u007f\u00e9"',
    );
  });

  it('refuses lone surrogates (not valid I-JSON)', () => {
    expect(() => canonicalJson({ bad: '\ud800' })).toThrow();
  });

  it('is independent of key insertion order and stable under re-canonicalization', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 200 },
    );
  });
});

describe('fingerprintSessionState', () => {
  const state: SessionState = {
    conversation: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'héllo €' }] }],
    plan: [{ content: 'step', status: 'pending' }],
    versionVector: { b: 2, a: 1 },
    channels: { notes: { kind: 'last_value', version: 3, value: { z: 1, a: [1.5, null] } } },
  };

  it('is the sha256 hex of the canonical JSON', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(fingerprintSessionState(state)).toBe(sha256Hex(canonicalJson(state)));
    expect(fingerprintSessionState(state)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on key order, and changes when content changes', () => {
    const reordered: SessionState = {
      channels: { notes: { value: { a: [1.5, null], z: 1 }, version: 3, kind: 'last_value' } },
      versionVector: { a: 1, b: 2 },
      plan: [{ status: 'pending', content: 'step' }],
      conversation: [{ parts: [{ text: 'héllo €', type: 'text' }], role: 'user', id: 'm1' }],
    };
    expect(fingerprintSessionState(reordered)).toBe(fingerprintSessionState(state));
    expect(fingerprintSessionState({ ...state, versionVector: { a: 1, b: 3 } })).not.toBe(
      fingerprintSessionState(state),
    );
  });
});
