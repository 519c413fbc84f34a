import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyIdMap, type IdMap, idDelete, idEntries, idGet, idHas, idSet } from '../src/persistent/id-map';

type Op = { set: string; value: number } | { del: string };

/** A record under the same operations: the order IdMap promises is the one Object.keys gives. */
function reference(ops: Op[]): Record<string, number> {
  const r: Record<string, number> = {};
  for (const op of ops) {
    if ('set' in op) r[op.set] = op.value;
    else delete r[op.del];
  }
  return r;
}

const key = fc.oneof(fc.constantFrom('0', '1', '7', '42', 'a', 'b', 'toolu_1'), fc.string({ maxLength: 4 }));
const op: fc.Arbitrary<Op> = fc.oneof(fc.record({ set: key, value: fc.integer() }), fc.record({ del: key }));

describe('IdMap', () => {
  it('answers like a record under any sets and deletes, in Object.keys order, and keeps every older version', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        let map: IdMap<number> = emptyIdMap();
        const versions: { map: IdMap<number>; text: string }[] = [];
        for (const o of ops) {
          map = 'set' in o ? idSet(map, o.set, o.value) : idDelete(map, o.del);
          versions.push({ map, text: JSON.stringify(idEntries(map)) });
        }
        const want = reference(ops);
        expect(idEntries(map)).toEqual(Object.entries(want));
        expect(map.size).toBe(Object.keys(want).length);
        for (const k of Object.keys(want)) expect(idGet(map, k)).toBe(want[k]);
        for (const o of ops) {
          const k = 'set' in o ? o.set : o.del;
          expect(idHas(map, k)).toBe(k in want);
        }
        for (const v of versions) expect(JSON.stringify(idEntries(v.map))).toBe(v.text);
      }),
      { numRuns: 300 },
    );
  });

  it('a delete of a missing key returns the same map; a key set again after its delete goes last', () => {
    const a = idSet(idSet(emptyIdMap<number>(), 'x', 1), 'y', 2);
    expect(idDelete(a, 'z')).toBe(a);
    const b = idSet(idDelete(a, 'x'), 'x', 3);
    expect(idEntries(b)).toEqual([
      ['y', 2],
      ['x', 3],
    ]);
  });
});
