import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CAPABILITY_FLAGS,
  noCapabilities,
  normalizeNegotiatedCapabilities,
  parseNegotiatedCapabilities,
} from '../src/index';

const allFalse = Object.fromEntries(CAPABILITY_FLAGS.map((f) => [f, false]));

describe('normalizeNegotiatedCapabilities', () => {
  it('keeps true flags and turns everything else into false', () => {
    const result = normalizeNegotiatedCapabilities({
      plans: true,
      usage: 'true',
      approvals: 1,
      resume: false,
      extra: true,
    });
    expect(result).toEqual({ ...allFalse, plans: true });
    expect(Object.keys(result)).toEqual([...CAPABILITY_FLAGS]);
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a number', 42],
    ['a string', 'plans'],
    ['an array', [true, true]],
    ['an array with flag-named props', Object.assign([], { plans: true })],
    ['a function', () => true],
    ['a symbol', Symbol('x')],
    ['an object with a null prototype', Object.create(null)],
  ])('never throws on %s', (_name, value) => {
    const result = normalizeNegotiatedCapabilities(value);
    expect(Object.values(result).every((v) => typeof v === 'boolean')).toBe(true);
  });

  it('never throws on a proxy whose traps throw', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('get trap');
        },
        has() {
          throw new Error('has trap');
        },
        ownKeys() {
          throw new Error('ownKeys trap');
        },
      },
    );
    expect(normalizeNegotiatedCapabilities(hostile)).toEqual(allFalse);
  });

  it('never throws on getters that throw, and reads getters that return true', () => {
    const value = {
      get plans(): boolean {
        throw new Error('getter');
      },
      get usage(): boolean {
        return true;
      },
    };
    expect(normalizeNegotiatedCapabilities(value)).toEqual({ ...allFalse, usage: true });
  });

  it('does not read flags from the prototype chain of a weird object as anything but booleans', () => {
    const proto = { reasoning: true };
    expect(normalizeNegotiatedCapabilities(Object.create(proto)).reasoning).toBe(true);
    expect(normalizeNegotiatedCapabilities(Object.create({ reasoning: 'yes' })).reasoning).toBe(false);
  });

  it('is total over arbitrary values and always yields a valid map', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const result = normalizeNegotiatedCapabilities(value);
        expect(parseNegotiatedCapabilities(result).ok).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('noCapabilities is all false', () => {
    expect(noCapabilities()).toEqual(allFalse);
  });
});
