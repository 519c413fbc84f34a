import type { JsonValue } from '@agentlane/contract';
import type { ApprovalAnswer, EngineSession, TranslatedEvent, TurnIO } from '@agentlane/engine-kit';
import { describe, expect, it } from 'vitest';
import { createDriver } from '../src';
import { MAX_PENDING_PERMISSIONS } from '../src/driver/request-ledger';
import { Frames } from './frame-log';
import { hostileDriver } from './hostile-driver';

// A real ACP agent over stdio that asks for many permissions at once (`permflood <n>`), against the real driver:
// the driver keeps at most MAX_PENDING_PERMISSIONS of one session waiting for the user.
const { openSession, translate } = hostileDriver('thr_cap', 'agentlane-acp-cap-');
const narrow = hostileDriver('thr_cap', 'agentlane-acp-cap-', { maxPendingPermissions: 2 });

type Wire = { dir?: string; msg?: { method?: string; result?: { outcome?: { outcome?: string } } } };
const wire = (f: JsonValue) => f as Wire;
const requests = (frames: JsonValue[]) =>
  frames.filter(
    (f) => wire(f).dir === 'agent->client' && wire(f).msg?.method === 'session/request_permission',
  ).length;

const allow: ApprovalAnswer = { outcome: 'selected', optionId: 'allow', answeredBy: 'user' };
type Draft = TranslatedEvent['draft'];
const payloads = (events: Draft[], kind: string) =>
  events.filter((e) => e.kind === kind).map((e) => e.payload as Record<string, JsonValue>);

/**
 * `permflood <n>` on `session`: every approval the driver asks about is held until all n requests are recorded
 * (so no answer frees a place meanwhile), then allowed.
 */
async function flood(session: EngineSession, n: number) {
  const frames = new Frames();
  const asked: string[] = [];
  const io: TurnIO = {
    emit: frames.push,
    signal: new AbortController().signal,
    awaitApproval: async (approvalId) => {
      asked.push(approvalId);
      await frames.until((f) => requests(f) === n);
      return allow;
    },
    awaitQuestion: async () => ({ outcome: 'cancelled' }),
  };
  const turn = { threadId: 'thr_cap', runId: 'run_1', turnId: 'run_1', prompt: `permflood ${n}` };
  expect(await session.runTurn(turn, io)).toEqual({ outcome: 'completed' });
  const events = translate(frames.list).map((e) => e.draft);
  const text = payloads(events, 'message.completed')
    .filter((p) => p.role === 'assistant')
    .map((p) => p.text)
    .join('\n');
  return { asked, events, frames: frames.list, text };
}

describe('ACP driver: the cap on pending permission requests', () => {
  it(`past ${MAX_PENDING_PERMISSIONS} pending, a request is answered cancelled at once: a warning, never an approval`, async () => {
    const session = await openSession();
    const over = 36;
    const n = MAX_PENDING_PERMISSIONS + over;
    const { asked, events, frames, text } = await flood(session, n);
    // The agent got `allow` for those offered and `cancelled` for the rest.
    expect(text).toBe(`allowed ${MAX_PENDING_PERMISSIONS}`);
    expect(asked).toHaveLength(MAX_PENDING_PERMISSIONS);
    const cancelled = frames.filter(
      (f) => wire(f).dir === 'client->agent' && wire(f).msg?.result?.outcome?.outcome === 'cancelled',
    );
    expect(cancelled).toHaveLength(over);
    // What the user saw is what the driver asked: the same approvals, each resolved by its answer only.
    expect(payloads(events, 'approval.requested').map((p) => p.approvalId)).toEqual(asked);
    const resolved = payloads(events, 'approval.resolved');
    expect(resolved.map((p) => String(p.approvalId)).sort()).toEqual([...asked].sort());
    expect(new Set(resolved.map((p) => p.decision))).toEqual(new Set(['allow_once']));
    const warnings = payloads(events, 'harness.warning');
    expect(warnings.map((w) => w.code)).toEqual(Array(over).fill('acp.too_many_pending_permissions'));
    expect(warnings[0]?.detail).toMatchObject({ limit: MAX_PENDING_PERMISSIONS });
    // No tool was opened for a request nobody was asked about.
    expect(payloads(events, 'tool.started')).toHaveLength(MAX_PENDING_PERMISSIONS);
  });

  it('the cap counts requests still waiting: once they are answered, the next ones are offered again', async () => {
    const session = await openSession();
    const first = await flood(session, MAX_PENDING_PERMISSIONS + 1);
    expect(first.text).toBe(`allowed ${MAX_PENDING_PERMISSIONS}`);
    const second = await flood(session, MAX_PENDING_PERMISSIONS);
    expect(second.text).toBe(`allowed ${MAX_PENDING_PERMISSIONS}`);
    expect(payloads(second.events, 'harness.warning')).toEqual([]);
  });

  it('is an engine option (maxPendingPermissions), checked when the driver is made', async () => {
    const { text, events } = await flood(await narrow.openSession(), 5);
    expect(text).toBe('allowed 2');
    expect(payloads(events, 'approval.requested')).toHaveLength(2);
    for (const bad of [0, 0.5, 10_001]) {
      expect(() => createDriver({ name: 'x', command: 'x', maxPendingPermissions: bad })).toThrow(
        /maxPendingPermissions/,
      );
    }
  });
});
