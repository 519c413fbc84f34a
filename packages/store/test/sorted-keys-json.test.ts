import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { slowSortedKeysJson, sortedKeysJson } from '../src/sql/sorted-keys-json';

// Stored content hashes were computed with the reference definition: the fast path must give the same bytes.
const key = fc.oneof(fc.string(), fc.constantFrom('0', '9', '10', '01', '-1', 'a', 'B', '__proto__x', ''));
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.constant(undefined),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.string(),
    fc.date({ noInvalidDate: true }),
    fc.array(tie('v'), { maxLength: 5 }),
    fc.dictionary(key, tie('v'), { maxKeys: 6 }),
  ),
}));

describe('sortedKeysJson', () => {
  it('is byte-identical to JSON.stringify with a key-sorting replacer', () => {
    fc.assert(
      fc.property(value.v, (v) => {
        expect(sortedKeysJson(v)).toBe(slowSortedKeysJson(v));
        expect(sortedKeysJson({ event: v, namespace: null })).toBe(
          slowSortedKeysJson({ event: v, namespace: null }),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts keys and drops undefined like JSON.stringify', () => {
    expect(sortedKeysJson({ b: 1, a: [undefined, () => 1], c: undefined, 2: 'x', 10: 'y' })).toBe(
      '{"2":"x","10":"y","a":[null,null],"b":1}',
    );
    expect(sortedKeysJson(undefined)).toBe('null');
    expect(sortedKeysJson(Number.NaN)).toBe('null');
    expect(sortedKeysJson(-0)).toBe('0');
  });
});
