import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import type { Translator } from '../src';
import {
  type ConformanceSubject,
  checkClosedAtEnd,
  checkDeterministic,
  checkEventKeys,
  checkHarnessFrames,
  checkNeverThrows,
  checkPure,
  checkResplit,
} from '../src/testing';

// The suite must catch what it names: a translator breaking each property is reported by that check.

let calls = 0;
/** Throws on non-objects, keys by a counter outside its state, never closes its tool, ignores harness frames. */
const sloppy: Translator<{ n: number }> = {
  provider: 'sloppy',
  initialState: () => ({ n: 0 }),
  translate(record, state) {
    const frame = record.frame as { harness?: string; step?: number };
    if (typeof frame !== 'object' || frame === null) throw new TypeError('not an object');
    calls += 1;
    if (frame.harness)
      return {
        state,
        events: [
          {
            key: `w${calls}`,
            draft: { kind: 'harness.warning', payload: { code: 'harness.unknown_frame', message: 'no' } },
          },
        ],
      };
    return {
      state: { n: state.n + 1 },
      events: [
        {
          key: 'tool',
          draft: {
            kind: 'tool.started',
            payload: { toolCallId: 't1', name: 'x', kind: 'other', input: {}, status: 'running' },
          },
        },
        { key: `c${calls}`, draft: { kind: 'plan.updated', payload: { entries: [] } } },
      ],
    };
  },
  finish: (state) => ({ state, events: [] }),
};

const subject: ConformanceSubject = {
  name: 'sloppy',
  translator: sloppy as unknown as Translator<JsonValue>,
  recordings: [{ name: 'r', frames: [{ step: 1 }, { step: 2 }, { step: 3 }, { step: 4 }] }],
};

describe('the translator conformance checks', () => {
  it('report each property a sloppy translator breaks', () => {
    expect(checkNeverThrows(subject).some((p) => p.includes('threw not an object'))).toBe(true);
    expect(checkDeterministic(subject)).toContain('r: a second translation differs from the first');
    expect(checkResplit(subject).length).toBeGreaterThan(0);
    expect(checkHarnessFrames(subject).some((p) => p.includes('harness.unknown_frame'))).toBe(true);
    expect(checkClosedAtEnd(subject).some((p) => p.includes('tool.started tool never closed'))).toBe(true);
    expect(checkEventKeys(subject)).toContain('r: key tool repeated with the same content');
  });

  it('report a translator that writes into the state it was given', () => {
    const mutating: Translator<{ seen: number[] }> = {
      provider: 'mutating',
      initialState: () => ({ seen: [] }),
      translate(record, state) {
        state.seen.push(record.nativeSeq); // the prior state changes under the lane's feet
        return { state: { seen: state.seen }, events: [] };
      },
      finish: (state) => ({ state, events: [] }),
    };
    const problems = checkPure({ ...subject, translator: mutating as unknown as Translator<JsonValue> });
    expect(problems[0]).toMatch(/^r frame 1 \(#0\): .*not extensible/);
    expect(checkPure(subject)).toEqual([]);
  });
});
