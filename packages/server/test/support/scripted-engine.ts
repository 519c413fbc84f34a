import {
  type CanonicalEventDraft,
  type JsonValue,
  normalizeNegotiatedCapabilities,
} from '@agentlane/contract';
import {
  type EngineDriver,
  type EngineSession,
  isHarnessFrame,
  type TranslatedEvent,
  type Translator,
} from '@agentlane/engine-kit';

/**
 * A test double for an engine: its "native" frames are `{ t: 'text', text }` and `{ t: 'approval', id }`.
 * The prompt is the script: `approve` asks for an approval and waits for the answer, `many N [size]` emits N
 * text frames of `size` characters, `fail` fails the turn, anything else is echoed.
 */
type State = { n: number };

const translator: Translator<State> = {
  provider: 'scripted',
  initialState: () => ({ n: 0 }),
  translate(record, state) {
    const frame = record.frame as Record<string, JsonValue>;
    const n = state.n + 1;
    const one = (draft: CanonicalEventDraft): { state: State; events: TranslatedEvent[] } => ({
      state: { n },
      events: [{ key: `k${record.nativeSeq}`, draft }],
    });
    if (isHarnessFrame(record.frame)) {
      const h = record.frame;
      switch (h.harness) {
        case 'turn.started':
          return one({ kind: 'turn.started', payload: { prompt: h.prompt } });
        case 'approval.answered':
          return one({
            kind: 'approval.resolved',
            payload: {
              approvalId: h.approvalId,
              outcome: h.outcome,
              ...(h.optionId ? { optionId: h.optionId } : {}),
              ...(h.answeredBy ? { answeredBy: h.answeredBy } : {}),
            },
          });
        case 'turn.ended':
          return one({
            kind: 'turn.completed',
            payload: { stopReason: h.outcome === 'completed' ? 'end_turn' : 'error' },
          });
        default:
          return { state, events: [] };
      }
    }
    if (frame.t === 'text') {
      return one({
        kind: 'message.delta',
        payload: { messageId: 'm1', partId: 'p1', delta: String(frame.text) },
      });
    }
    if (frame.t === 'approval') {
      return one({
        kind: 'approval.requested',
        payload: {
          approvalId: String(frame.id),
          title: 'Run a command',
          subject: { kind: 'command', command: 'ls' },
          options: [
            { optionId: 'yes', label: 'Allow', kind: 'allow_once' },
            { optionId: 'no', label: 'Reject', kind: 'reject_once' },
          ],
        },
      });
    }
    return one({ kind: 'harness.warning', payload: { code: 'unknown_frame', message: 'unknown frame' } });
  },
  finish: (state) => ({ state, events: [] }),
};

export function createScriptedDriver(name = 'scripted'): EngineDriver {
  return {
    name,
    provider: 'scripted',
    label: 'Scripted test engine',
    translator: translator as unknown as Translator,
    async openSession(): Promise<EngineSession> {
      return {
        binding: {
          provider: 'scripted',
          nativeSessionId: 'native-1',
          runtimeBinding: {},
          protocolVersion: '1',
          capabilities: normalizeNegotiatedCapabilities({ streamingText: true, approvals: true }),
        },
        async runTurn(turn, io) {
          const [cmd, a, b] = turn.prompt.split(' ');
          if (cmd === 'approve') {
            io.emit({ t: 'approval', id: 'ap1' });
            const answer = await io.awaitApproval('ap1');
            io.emit({ t: 'text', text: `answer:${answer.optionId ?? answer.outcome}` });
            return { outcome: 'completed' };
          }
          if (cmd === 'many') {
            const filler = 'x'.repeat(Number(b ?? 10));
            for (let i = 0; i < Number(a); i++) {
              io.emit({ t: 'text', text: `${i}:${filler}` });
              // Like a real engine, output arrives over time rather than in one synchronous burst.
              if (i % 20 === 19) await new Promise((r) => setImmediate(r));
            }
            return { outcome: 'completed' };
          }
          if (cmd === 'fail') return { outcome: 'failed', error: 'scripted failure' };
          io.emit({ t: 'text', text: `echo: ${turn.prompt}` });
          return { outcome: 'completed' };
        },
        async close() {},
      };
    },
  };
}
