import { type AuditableCall, parseAuditableCall } from '@agentlane/contract';
import { decodeTime } from 'ulid';
import { describe, expect, it } from 'vitest';
import {
  auditEngineEvents,
  deterministicUlid,
  type EngineAuditState,
  initialEngineAuditState,
  type TranslatedEvent,
  type TranslationContext,
} from '../src';

const CTX: TranslationContext = { threadId: 'thr_1', runId: 'run_1', turnId: 'run_1', provider: 'engine' };
const OPTIONS = { provider: 'engine', transport: 'engine-proto' };

/** Feeds steps of events (one per frame, at 10 ms apart) and collects the rows. */
function run(steps: TranslatedEvent[][]): { rows: AuditableCall[]; state: EngineAuditState } {
  let state = initialEngineAuditState();
  const rows: AuditableCall[] = [];
  steps.forEach((events, i) => {
    const at = new Date(Date.UTC(2026, 0, 1) + (i + 1) * 10).toISOString();
    const step = auditEngineEvents(state, events, at, CTX, OPTIONS);
    state = step.state;
    rows.push(...step.rows);
  });
  for (const row of rows) expect(parseAuditableCall(row).ok).toBe(true);
  return { rows, state };
}

const ev = (key: string, kind: string, payload: object, namespace?: string[]): TranslatedEvent =>
  ({ key, draft: { kind, payload }, ...(namespace ? { namespace } : {}) }) as TranslatedEvent;

describe('deterministicUlid', () => {
  it('is a valid ULID whose time is the call end, and the same key gives the same id', () => {
    const t = Date.UTC(2026, 0, 1, 12);
    const a = deterministicUlid(t, 'thr\u0000run\u0000engine-turn\u00001');
    expect(a).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(decodeTime(a)).toBe(t);
    expect(deterministicUlid(t, 'thr\u0000run\u0000engine-turn\u00001')).toBe(a);
    expect(deterministicUlid(t, 'thr\u0000run\u0000engine-turn\u00002')).not.toBe(a);
  });
});

describe('auditEngineEvents', () => {
  it('does not mutate the prior state (a translator stays pure)', () => {
    const prior = initialEngineAuditState();
    const frozen = JSON.stringify(prior);
    auditEngineEvents(
      prior,
      [ev('t', 'turn.started', { prompt: 'hi' })],
      '2026-01-01T00:00:00.000Z',
      CTX,
      OPTIONS,
    );
    expect(JSON.stringify(prior)).toBe(frozen);
  });

  it('a re-emitted step usage replaces itself; steps sum into the turn row; child steps count too', () => {
    const { rows } = run([
      [ev('turn.started', 'turn.started', { prompt: 'go' })],
      [ev('usage.step:a', 'usage.updated', { scope: 'step', inputTokens: 5, outputTokens: 1 })],
      [ev('usage.step:a', 'usage.updated', { scope: 'step', inputTokens: 10, outputTokens: 2 })],
      [
        ev(
          'usage.step:b',
          'usage.updated',
          { scope: 'step', inputTokens: 7, cost: { amount: 0.5, currency: 'EUR' } },
          ['child'],
        ),
      ],
      [ev('turn.completed', 'turn.completed', { stopReason: 'end_turn', durationMs: 25 })],
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ call_class: 'model', latency_ms: 25, status: 'ok' });
    expect(rows[0]?.payload).toMatchObject({
      usage: { inputTokens: 17, outputTokens: 2, costAmount: 0.5, costCurrency: 'EUR' },
    });
  });

  it('a tool that completes twice is one row; an approval resolved in the same step is on it', () => {
    const { rows } = run([
      [
        ev('tool.started:x', 'tool.started', {
          toolCallId: 'x',
          name: 'bash',
          kind: 'execute',
          input: {},
          status: 'pending',
        }),
      ],
      [
        ev('tool.progress:x:1', 'tool.progress', {
          toolCallId: 'x',
          status: 'running',
          input: { command: 'ls' },
        }),
      ],
      [
        ev('approval.requested:p', 'approval.requested', {
          approvalId: 'p',
          toolCallId: 'x',
          title: 'run',
          subject: { kind: 'command' },
          options: [],
        }),
      ],
      [
        ev('tool.completed:x', 'tool.completed', {
          toolCallId: 'x',
          status: 'cancelled',
          error: 'cancelled',
        }),
        ev('approval.resolved:p', 'approval.resolved', {
          approvalId: 'p',
          outcome: 'cancelled',
          answeredBy: 'system',
        }),
      ],
      [
        ev('tool.completed:x', 'tool.completed', {
          toolCallId: 'x',
          status: 'cancelled',
          error: 'cancelled',
        }),
      ],
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'cancelled', latency_ms: 30, seq_within_turn: 1 });
    expect(rows[0]?.payload).toMatchObject({
      input: { command: 'ls' },
      error: 'cancelled',
      approval: { decision: 'cancelled', answeredBy: 'system' },
    });
  });

  it('a turn that showed no model activity (cancelled before the engine answered) has no model row', () => {
    const { rows } = run([
      [ev('turn.started', 'turn.started', { prompt: 'go' })],
      [ev('turn.completed', 'turn.completed', { stopReason: 'cancelled' })],
    ]);
    expect(rows).toEqual([]);
  });

  it('figures the contract cannot hold (negative cost, fractional tokens) never make an invalid row', () => {
    const { rows } = run([
      [ev('turn.started', 'turn.started', { prompt: 'go' })],
      [
        ev('usage.t', 'usage.updated', {
          scope: 'turn',
          inputTokens: 3.6,
          cost: { amount: -1, currency: 'USD' },
        }),
      ],
      [ev('turn.completed', 'turn.completed', { stopReason: 'end_turn', durationMs: 1.4 })],
    ]);
    expect(rows[0]?.latency_ms).toBe(1);
    expect(rows[0]?.payload).toMatchObject({ usage: { inputTokens: 4 } });
    expect(rows[0]?.payload).not.toHaveProperty('usage.costAmount');
  });

  it('session-cumulative usage counts only when the session began in this run', () => {
    const turn = (origin: string) =>
      run([
        [
          ev('session.started', 'session.started', {
            provider: 'e',
            origin,
            generation: 1,
            capabilities: {},
          }),
        ],
        [ev('turn.started', 'turn.started', { prompt: 'go' })],
        [ev('message.completed:m', 'message.completed', { messageId: 'm', role: 'assistant', text: 'ok' })],
        [ev('usage.s', 'usage.updated', { scope: 'session', cost: { amount: 2, currency: 'USD' } })],
        [ev('turn.completed', 'turn.completed', { stopReason: 'end_turn' })],
      ]).rows[0]?.payload;
    expect(turn('new')).toMatchObject({ usage: { costAmount: 2 } });
    expect(turn('load')).not.toHaveProperty('usage');
  });
});
