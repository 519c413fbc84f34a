import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareVectors, hasSeen, incrementVector, mergeVectors, type VersionVector } from '../src/index';

// The laws of the language-agnostic contract's vector math. Missing entries count as 0, so vectors are
// compared by meaning (`equal`), not by key set.

const clientId = fc.constantFrom('a', 'b', 'c', 'd', 'client-e');
const vector: fc.Arbitrary<VersionVector> = fc.dictionary(clientId, fc.nat({ max: 20 }), { maxKeys: 5 });

describe('version vectors', () => {
  it('merge is commutative', () => {
    fc.assert(
      fc.property(
        vector,
        vector,
        (a, b) => compareVectors(mergeVectors(a, b), mergeVectors(b, a)) === 'equal',
      ),
    );
  });

  it('merge is associative', () => {
    fc.assert(
      fc.property(vector, vector, vector, (a, b, c) => {
        const left = mergeVectors(mergeVectors(a, b), c);
        const right = mergeVectors(a, mergeVectors(b, c));
        expect(left).toEqual(right);
      }),
    );
  });

  it('merge is idempotent', () => {
    fc.assert(fc.property(vector, (a) => compareVectors(mergeVectors(a, a), a) === 'equal'));
  });

  it('a vector is its own equal', () => {
    fc.assert(fc.property(vector, (a) => compareVectors(a, a) === 'equal'));
  });

  it('compare agrees with merge', () => {
    fc.assert(
      fc.property(vector, vector, (a, b) => {
        const order = compareVectors(a, b);
        const merged = mergeVectors(a, b);
        const mergedIsA = compareVectors(merged, a) === 'equal';
        const mergedIsB = compareVectors(merged, b) === 'equal';
        if (order === 'equal') return mergedIsA && mergedIsB;
        if (order === 'ancestor') return mergedIsB && !mergedIsA;
        if (order === 'descendant') return mergedIsA && !mergedIsB;
        return !mergedIsA && !mergedIsB; // concurrent: the merge is strictly newer than both
      }),
    );
  });

  it('compare is antisymmetric', () => {
    const flip = {
      equal: 'equal',
      ancestor: 'descendant',
      descendant: 'ancestor',
      concurrent: 'concurrent',
    } as const;
    fc.assert(fc.property(vector, vector, (a, b) => compareVectors(b, a) === flip[compareVectors(a, b)]));
  });

  it('increment makes a descendant, and the merge of both is a descendant of each', () => {
    fc.assert(
      fc.property(vector, clientId, (a, id) => {
        const next = incrementVector(a, id);
        expect(compareVectors(next, a)).toBe('descendant');
        expect(compareVectors(a, next)).toBe('ancestor');
        expect(next[id]).toBe((a[id] ?? 0) + 1);
      }),
    );
  });

  it('two clients writing from the same base are concurrent', () => {
    fc.assert(
      fc.property(
        vector,
        (base) => compareVectors(incrementVector(base, 'a'), incrementVector(base, 'b')) === 'concurrent',
      ),
    );
  });

  it('hasSeen is v[clientId] >= version, and a merge has seen what either side saw', () => {
    fc.assert(
      fc.property(vector, vector, clientId, fc.nat({ max: 25 }), (a, b, id, version) => {
        expect(hasSeen(a, { clientId: id, version })).toBe((a[id] ?? 0) >= version);
        if (hasSeen(a, { clientId: id, version }))
          expect(hasSeen(mergeVectors(a, b), { clientId: id, version })).toBe(true);
      }),
    );
  });

  it('treats a missing entry as 0 and never mutates its inputs', () => {
    const a = Object.freeze({ x: 0 });
    const b = Object.freeze({});
    expect(compareVectors(a, b)).toBe('equal');
    expect(mergeVectors(a, b)).toEqual({ x: 0 });
    expect(incrementVector(b, 'x')).toEqual({ x: 1 });
    expect(hasSeen(b, { clientId: 'x', version: 0 })).toBe(true);
    expect(hasSeen(b, { clientId: 'x', version: 1 })).toBe(false);
  });

  it('ignores inherited keys such as __proto__ or toString', () => {
    expect(compareVectors({}, { toString: 0 } as VersionVector)).toBe('equal');
    expect(hasSeen({}, { clientId: 'constructor', version: 1 })).toBe(false);
  });

  it('keeps a client named __proto__ as an entry of the merge (as JSON.parse gives it)', () => {
    const a = JSON.parse('{"__proto__": 3, "b": 1}') as VersionVector;
    const merged = mergeVectors(a, JSON.parse('{"__proto__": 2}') as VersionVector);
    expect(Object.hasOwn(merged, '__proto__')).toBe(true);
    expect(JSON.stringify(merged)).toBe('{"__proto__":3,"b":1}');
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  });
});
