import { type JsonValue, parseAuditableCall, parseCanonicalEventDraft } from '@agentlane/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runtimeTranslator } from '../src/index';

const ctx = { threadId: 'thr_f', runId: 'run_f', turnId: 'run_f', provider: 'builtin' };

const RT = [
  'stage',
  'part',
  'plan',
  'model.start',
  'tool.start',
  'tool.progress',
  'tool.end',
  'approval',
  'question',
  'terminal',
  'file',
  'artifact',
  'usage',
  'marker',
  'warning',
  'model',
  'checkpoint',
  'audit',
  'child.start',
  'child.state',
  'child.end',
  'child',
  'nope',
];
const PART = [
  'text-start',
  'text-delta',
  'text-end',
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
  'tool-input-start',
  'tool-input-delta',
  'tool-call',
  'finish-step',
  'error',
  'start-step',
  'weird',
];
const HARNESS = [
  'session.bound',
  'turn.started',
  'approval.answered',
  'question.answered',
  'engine.exited',
  'engine.error',
  'turn.ended',
  'turn.cancel_requested',
  'other',
];
/** Field names the frames read: a fuzzed frame gets a random subset, each with a random (often wrong) value. */
const FIELDS = [
  'step',
  'stage',
  'phase',
  'status',
  'id',
  'text',
  'delta',
  'toolCallId',
  'toolName',
  'input',
  'name',
  'kind',
  'message',
  'output',
  'error',
  'durationMs',
  'approvalId',
  'questionId',
  'title',
  'subject',
  'diff',
  'choices',
  'multiple',
  'allowFreeText',
  'terminalId',
  'chunk',
  'exit',
  'path',
  'change',
  'additions',
  'deletions',
  'content',
  'contentType',
  'encoding',
  'deliver',
  'usage',
  'cost',
  'marker',
  'code',
  'detail',
  'model',
  'availableModels',
  'entries',
  'row',
  'childSessionId',
  'childRunId',
  'parentToolCallId',
  'state',
  'summary',
  'outcome',
  'optionId',
  'capabilities',
  'origin',
  'generation',
  'prompt',
];

const value: fc.Arbitrary<JsonValue> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<JsonValue>('call_0', 'x', '', 'base64', 'selected', 'running', 'ok'),
  },
  { weight: 2, arbitrary: fc.integer({ min: -2, max: 5 }) },
  { weight: 1, arbitrary: fc.constantFrom<JsonValue>(null, true, [], {}, Number.MAX_SAFE_INTEGER, 1.5) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue> },
);

const fields = fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 });

const partFrame = fc
  .record({ type: fc.constantFrom(...PART), rest: fields })
  .map(({ type, rest }): JsonValue => ({ ...rest, type }));

const runtimeFrame: fc.Arbitrary<JsonValue> = fc.letrec<{ frame: JsonValue }>((tie) => ({
  frame: fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .record({ rt: fc.constantFrom(...RT), rest: fields })
        .map(({ rt, rest }) => ({ ...rest, rt })),
    },
    {
      weight: 4,
      arbitrary: fc
        .record({ rest: fields, part: partFrame })
        .map(({ rest, part }) => ({ ...rest, rt: 'part', part })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          id: fc.constantFrom('c1', 'c2', ''),
          inner: fc.oneof(fc.constant(undefined), tie('frame')),
        })
        .map(({ id, inner }) => ({
          rt: 'child',
          childSessionId: id,
          ...(inner === undefined ? {} : { frame: inner }),
        })),
    },
  ),
})).frame;

const harnessFrame = fc
  .record({ harness: fc.constantFrom(...HARNESS), rest: fields })
  .map(({ harness, rest }): JsonValue => ({ ...rest, harness }));

const anyFrame = fc.oneof(
  { weight: 8, arbitrary: runtimeFrame },
  { weight: 2, arbitrary: harnessFrame },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue> },
);

describe('the built-in translator against malformed frames', () => {
  it('the frames the issue names become harness.warning, not a TypeError', () => {
    for (const frame of [{ rt: 'part', step: 1 }, { rt: 'child' }, { rt: 'tool.start' }] as JsonValue[]) {
      const step = runtimeTranslator.translate(
        { runId: 'run_f', nativeSeq: 1, receivedAt: '2026-01-01T00:00:00.000Z', frame },
        runtimeTranslator.initialState(ctx),
        ctx,
      );
      expect(step.events.map((e) => e.draft.kind)).toEqual(['harness.warning']);
      expect(JSON.stringify(step.events[0]?.draft.payload)).toContain('builtin.bad_frame');
    }
  });

  it('100,000 fuzzed frames in runs of 50: no throw, every event and row inside the contract', () => {
    let frames = 0;
    fc.assert(
      fc.property(fc.array(anyFrame, { minLength: 50, maxLength: 50 }), (run) => {
        let state = runtimeTranslator.initialState(ctx);
        run.forEach((frame, i) => {
          const step = runtimeTranslator.translate(
            { runId: 'run_f', nativeSeq: i + 1, receivedAt: '2026-01-01T00:00:00.000Z', frame },
            state,
            ctx,
          );
          for (const e of step.events) expect(parseCanonicalEventDraft(e.draft).ok).toBe(true);
          for (const row of step.audit ?? []) expect(parseAuditableCall(row).ok).toBe(true);
          state = step.state;
          frames += 1;
        });
        const end = runtimeTranslator.finish(state, ctx);
        for (const e of end.events) expect(parseCanonicalEventDraft(e.draft).ok).toBe(true);
      }),
      { numRuns: 2000, seed: 16 },
    );
    expect(frames).toBeGreaterThanOrEqual(100_000);
  }, 120_000);
});
