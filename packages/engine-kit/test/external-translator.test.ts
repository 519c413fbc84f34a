import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { externalTranslator, type Translator } from '../src';
import { CONFORMANCE_CTX, eventsOf, recordsOf, runPass } from '../src/testing';

const translator = externalTranslator as unknown as Translator<JsonValue>;

const delta = (key: string, text: string) => ({
  event: { key, kind: 'message.delta', payload: { messageId: 'm1', partId: 'm1', delta: text } },
});
const completed = (key: string) => ({
  event: { key, kind: 'turn.completed', payload: { stopReason: 'end_turn' } },
});
const ended = { harness: 'turn.ended', outcome: 'completed' };

/** The events a pass over these frames makes, as [key, kind, payload]; the state through JSON between steps. */
function translate(frames: JsonValue[]): [string, string, JsonValue][] {
  const pass = runPass(translator, recordsOf(frames), CONFORMANCE_CTX, { viaJson: true });
  return eventsOf(pass).map((e) => [e.key, e.draft.kind, e.draft.payload as unknown as JsonValue]);
}

describe('the external translator', () => {
  it('refuses a revision that changes an event kind: a warning, and the first event stays', () => {
    const events = translate([delta('m1:0', 'hel'), completed('m1:0'), ended]);
    expect(events[0]).toEqual(['m1:0', 'message.delta', { messageId: 'm1', partId: 'm1', delta: 'hel' }]);
    expect(events[1]?.[0]).toBe('external.bad_frame:2');
    expect(events[1]?.[1]).toBe('harness.warning');
    expect(events[1]?.[2]).toMatchObject({ code: 'external.bad_frame' });
    expect(JSON.stringify(events[1]?.[2])).toContain('message.delta');
    // Nothing else is of key m1:0, and the refused turn.completed did not end the turn: the lane's end adds one.
    expect(events.filter((e) => e[0] === 'm1:0')).toHaveLength(1);
    expect(events.at(-1)).toEqual(['turn.completed', 'turn.completed', { stopReason: 'end_turn' }]);
  });

  it('accepts a revision of the same kind (a corrected payload)', () => {
    const events = translate([delta('m1:0', 'hel'), delta('m1:0', 'help'), completed('turn.completed')]);
    expect(events.map((e) => e[1])).toEqual(['message.delta', 'message.delta', 'turn.completed']);
    expect(events[1]?.[2]).toEqual({ messageId: 'm1', partId: 'm1', delta: 'help' });
  });

  it("keeps its own keys: a draft may not take one, and its turn end does not revise a runtime's event", () => {
    const events = translate([
      delta('external.bad_frame:9', 'x'),
      { event: { key: 'turn.completed', kind: 'plan.updated', payload: { entries: [] } } },
      ended,
    ]);
    expect(events.map((e) => [e[0], e[1]])).toEqual([
      ['external.bad_frame:1', 'harness.warning'],
      ['turn.completed', 'plan.updated'],
      ['external.turn-completed', 'turn.completed'],
    ]);
  });
});
