import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import {
  type ConformanceSubject,
  checkClosedAtEnd,
  checkDeterministic,
  checkEventKeys,
  checkHarnessFrames,
  checkNeverThrows,
  checkPure,
  checkResplit,
} from './checks.js';

/**
 * The translator conformance suite as vitest tests: every adapter runs it on its recorded sources. Each
 * property lists what broke it (at most 20 lines), so a failure says where.
 */
export function describeTranslatorConformance<S extends JsonValue>(subject: ConformanceSubject<S>): void {
  const s = subject as unknown as ConformanceSubject;
  describe(`${subject.name} translator conformance`, () => {
    it('has recorded sources to check, none empty', () => {
      expect(s.recordings.length).toBeGreaterThan(0);
      for (const r of s.recordings) expect(r.frames.length, r.name).toBeGreaterThan(0);
    });
    it('never throws: garbage frames become harness.warning, truncated frames stay inside the contract', () => {
      expect(checkNeverThrows(s).slice(0, 20)).toEqual([]);
    });
    it('re-translation is deterministic (also with the state through JSON between steps)', () => {
      expect(checkDeterministic(s)).toEqual([]);
    });
    it('a recording split in two and translated in two passes gives the same events', () => {
      expect(checkResplit(s).slice(0, 20)).toEqual([]);
    });
    it('handles a well-formed frame of every harness kind', () => {
      expect(checkHarnessFrames(s)).toEqual([]);
    });
    it('closes everything it opened when the source ends, wherever it is cut', () => {
      expect(checkClosedAtEnd(s).slice(0, 20)).toEqual([]);
    });
    it('never changes the state it is given (each state deep-frozen before the next step)', () => {
      expect(checkPure(s).slice(0, 20)).toEqual([]);
    });
    it('keys events uniquely (a repeated key is a revision of the same kind)', () => {
      expect(checkEventKeys(s).slice(0, 20)).toEqual([]);
    });
  });
}
