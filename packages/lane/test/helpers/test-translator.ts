import type { JsonObject, JsonValue } from '@agentlane/contract';
import { isHarnessFrame, type TranslatedEvent, type Translator } from '@agentlane/engine-kit';

/**
 * A tiny engine "protocol" for lane tests:
 *   { t: 'delta', text }                 → message.delta (one message per run)
 *   { t: 'snapshot', id, text }          → message.completed keyed by id (re-emitting it makes revisions)
 *   { t: 'big', text }                   → tool.completed with `text` as output (for the artifact threshold)
 *   { t: 'approval', id }                → approval.requested
 *   { t: 'question', id }                → question.requested
 * plus the harness frames. Anything else becomes a harness.warning. `spinMs` makes it slow on purpose.
 */
export interface TestState extends JsonObject {
  deltas: number;
  open: boolean;
}

export function createTestTranslator(spinMs = 0): Translator<TestState> {
  return {
    provider: 'test',
    initialState: () => ({ deltas: 0, open: false }),
    translate(record, state) {
      if (spinMs > 0) {
        const until = Date.now() + spinMs;
        while (Date.now() < until) {
          // deliberately slow: the crash test kills the process while translation is busy
        }
      }
      const f = record.frame;
      const events: TranslatedEvent[] = [];
      const n = record.nativeSeq;
      if (isHarnessFrame(f)) {
        switch (f.harness) {
          case 'turn.started':
            events.push({ key: 'turn', draft: { kind: 'turn.started', payload: { prompt: f.prompt } } });
            break;
          case 'turn.ended':
            events.push({
              key: 'turn.end',
              draft: {
                kind: 'turn.completed',
                payload: {
                  stopReason:
                    f.outcome === 'completed'
                      ? 'end_turn'
                      : f.outcome === 'cancelled'
                        ? 'cancelled'
                        : 'error',
                },
              },
            });
            break;
          case 'engine.error':
            events.push({
              key: `error:${n}`,
              draft: {
                kind: 'harness.error',
                payload: { code: 'engine_error', message: f.message, fatal: f.fatal },
              },
            });
            break;
          case 'frame.dropped':
            events.push({
              key: `dropped:${n}`,
              draft: {
                kind: 'harness.warning',
                payload: { code: 'harness.frame_dropped', message: f.message, detail: { reason: f.reason } },
              },
            });
            break;
          case 'approval.answered':
            events.push({
              key: `approval.resolved:${f.approvalId}`,
              draft: {
                kind: 'approval.resolved',
                payload: {
                  approvalId: f.approvalId,
                  outcome: f.outcome,
                  ...(f.optionId ? { optionId: f.optionId } : {}),
                  ...(f.answeredBy ? { answeredBy: f.answeredBy } : {}),
                },
              },
            });
            break;
          case 'question.answered':
            events.push({
              key: `question.resolved:${f.questionId}`,
              draft: {
                kind: 'question.resolved',
                payload: {
                  questionId: f.questionId,
                  outcome: f.outcome,
                  ...(f.answeredBy ? { answeredBy: f.answeredBy } : {}),
                },
              },
            });
            break;
          default:
            break;
        }
        return { state, events };
      }
      const frame = (typeof f === 'object' && f !== null && !Array.isArray(f) ? f : {}) as Record<
        string,
        JsonValue
      >;
      switch (frame.t) {
        case 'delta': {
          const next = { ...state, deltas: state.deltas + 1, open: true };
          if (!state.open) {
            events.push({
              key: 'msg.start',
              draft: { kind: 'message.started', payload: { messageId: 'm1', role: 'assistant' } },
            });
          }
          events.push({
            key: `delta:${n}`,
            draft: {
              kind: 'message.delta',
              payload: { messageId: 'm1', partId: 'p1', delta: String(frame.text) },
            },
          });
          return { state: next, events };
        }
        case 'snapshot':
          events.push({
            key: `snap:${String(frame.id)}`,
            draft: {
              kind: 'message.completed',
              payload: { messageId: String(frame.id), role: 'assistant', text: String(frame.text) },
            },
          });
          return { state, events };
        case 'approval':
          events.push({
            key: `approval:${String(frame.id)}`,
            draft: {
              kind: 'approval.requested',
              payload: {
                approvalId: String(frame.id),
                title: 'Allow?',
                subject: { kind: 'other' },
                options: [{ optionId: 'allow', label: 'Allow', kind: 'allow_once' }],
              },
            },
          });
          return { state, events };
        case 'question':
          events.push({
            key: `question:${String(frame.id)}`,
            draft: {
              kind: 'question.requested',
              payload: {
                questionId: String(frame.id),
                prompt: 'Which?',
                choices: [],
                multiple: false,
                allowFreeText: true,
              },
            },
          });
          return { state, events };
        case 'big':
          events.push({
            key: `big:${n}`,
            draft: {
              kind: 'tool.completed',
              payload: { toolCallId: `tc${n}`, status: 'completed', output: String(frame.text) },
            },
          });
          return { state, events };
        default:
          events.push({
            key: `warn:${n}`,
            draft: {
              kind: 'harness.warning',
              payload: { code: 'unknown_frame', message: `unknown frame ${n}` },
            },
          });
          return { state, events };
      }
    },
    finish(state) {
      if (!state.open) return { state, events: [] };
      return {
        state: { ...state, open: false },
        events: [
          {
            key: 'msg.end',
            draft: {
              kind: 'message.completed',
              payload: { messageId: 'm1', role: 'assistant', text: `${state.deltas} deltas` },
            },
          },
        ],
      };
    },
  };
}
