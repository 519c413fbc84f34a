import type { JsonValue } from '@agentlane/contract';
import type { ApprovalAnswer, EngineSession, TranslatedEvent, TurnIO } from '@agentlane/engine-kit';
import { describe, expect, it } from 'vitest';
import { Frames } from './frame-log';
import { hostileDriver } from './hostile-driver';

// A real ACP agent over stdio asking for permissions in ways no answer can settle unambiguously, against
// the real driver and the SDK's own checks.
const { openSession, translate } = hostileDriver('thr_perm', 'agentlane-acp-perm-');

type Answer = (
  approvalId: string,
  asked: string[],
  frames: Frames,
) => ApprovalAnswer | Promise<ApprovalAnswer>;

/**
 * Runs one turn (on `session`, else a new one); `answer` gets each approval id the driver waits on, those
 * asked so far, and the frames. The frames are translated as that run's own.
 */
async function run(prompt: string, answer: Answer, session?: EngineSession) {
  session ??= await openSession();
  const frames = new Frames();
  const asked: string[] = [];
  const io: TurnIO = {
    emit: (frame) => frames.push(frame),
    signal: new AbortController().signal,
    awaitApproval: async (approvalId) => {
      asked.push(approvalId);
      return answer(approvalId, asked, frames);
    },
    awaitQuestion: async () => ({ outcome: 'cancelled' }),
  };
  const outcome = await session.runTurn(
    { threadId: 'thr_perm', runId: 'run_1', turnId: 'run_1', prompt },
    io,
  );
  expect(outcome).toEqual({ outcome: 'completed' });
  const events = translate(frames.list).map((e) => e.draft);
  // What the agent said it got back.
  const text = events
    .filter((e) => e.kind === 'message.completed' && e.payload.role === 'assistant')
    .map((e) => (e.payload as { text: string }).text)
    .join('\n');
  return { asked, events, text };
}

const allow: ApprovalAnswer = { outcome: 'selected', optionId: 'allow', answeredBy: 'user' };
const reject: ApprovalAnswer = { outcome: 'selected', optionId: 'reject', answeredBy: 'user' };
type Draft = TranslatedEvent['draft'];
const ofKind = (events: Draft[], kind: string) =>
  events.filter((e) => e.kind === kind).map((e) => ({ payload: e.payload as Record<string, JsonValue> }));
const warningCodes = (events: Draft[]) => ofKind(events, 'harness.warning').map((e) => e.payload.code);

describe('ACP driver: permission requests no answer can settle unambiguously', () => {
  it('ids 1.5, "1_5", 1 and "1" are four approvals, each answered by its own answer only', async () => {
    // Only the request with the id 1.5 is allowed.
    const { asked, events, text } = await run('permids', (id, sofar) => (id === sofar[0] ? allow : reject));
    expect(new Set(asked).size).toBe(4);
    expect(text).toBe('1.5=allow "1_5"=reject 1=reject "1"=reject');
    const requested = ofKind(events, 'approval.requested').map((e) => e.payload.approvalId);
    expect(requested).toEqual(asked);
    const decisions = Object.fromEntries(
      ofKind(events, 'approval.resolved').map((e) => [e.payload.approvalId, e.payload.decision]),
    );
    expect(decisions).toEqual({
      [asked[0] as string]: 'allow_once',
      [asked[1] as string]: 'reject_once',
      [asked[2] as string]: 'reject_once',
      [asked[3] as string]: 'reject_once',
    });
  });

  it('a second request under an id still pending is refused with an error and a warning, never answered', async () => {
    // The first request is answered only once the second is recorded: it is still pending then.
    const bothAsked = (frames: JsonValue[]) => JSON.stringify(frames).includes('read readme');
    const { asked, events, text } = await run('permdup', async (_id, _asked, frames) => {
      await frames.until(bothAsked);
      return allow;
    });
    // The agent got two responses to the id 7: the user's answer to the first request and the refusal
    // of the second (in either order: both are sent as soon as they are known).
    expect(['7: allow, error', '7: error, allow']).toContain(text);
    expect(asked).toEqual(['perm-7']);
    const requested = ofKind(events, 'approval.requested');
    expect(requested.map((e) => e.payload.title)).toEqual(['delete prod db']);
    expect(warningCodes(events)).toEqual(['acp.duplicate_request_id']);
    expect(ofKind(events, 'approval.resolved').map((e) => e.payload)).toEqual([
      expect.objectContaining({ approvalId: 'perm-7', decision: 'allow_once' }),
    ]);
  });

  it('an id reused after its answer gets an approval of its own: in the same run, and in a later one', async () => {
    const session = await openSession();
    const one = await run('permtwice', (id) => (id === 'perm-7' ? allow : reject), session);
    expect(one.asked).toEqual(['perm-7', 'perm-7~2']);
    expect(one.text).toBe('7: allow, reject');
    expect(ofKind(one.events, 'approval.requested').map((e) => e.payload.approvalId)).toEqual(one.asked);
    expect(ofKind(one.events, 'approval.resolved').map((e) => e.payload.decision)).toEqual([
      'allow_once',
      'reject_once',
    ]);
    // The next run's translator starts afresh; the driver's books span the session and its frame says which.
    const two = await run('permonce', () => allow, session);
    expect(two.asked).toEqual(['perm-7~3']);
    expect(ofKind(two.events, 'approval.requested').map((e) => e.payload.approvalId)).toEqual(['perm-7~3']);
    expect(ofKind(two.events, 'approval.resolved').map((e) => e.payload.approvalId)).toEqual(['perm-7~3']);
    expect(warningCodes([...one.events, ...two.events])).toEqual([]);
  });

  it('options sharing an optionId are refused with an error: no approval, no decision, a warning', async () => {
    const { asked, events, text } = await run('permambiguous', () => allow);
    expect(text).toBe('ambiguous: error');
    expect(asked).toEqual([]);
    expect(ofKind(events, 'approval.requested')).toEqual([]);
    expect(ofKind(events, 'approval.resolved')).toEqual([]);
    expect(warningCodes(events)).toEqual(['acp.ambiguous_permission_options']);
  });

  it('a request the SDK rejects (an unknown option kind) offers no approval and says why', async () => {
    const { asked, events, text } = await run('permbadkind', () => allow);
    expect(text).toBe('bad kind: error');
    expect(asked).toEqual([]);
    expect(ofKind(events, 'approval.requested')).toEqual([]);
    expect(ofKind(events, 'approval.resolved')).toEqual([]);
    expect(warningCodes(events)).toEqual(['acp.bad_permission_request']);
  });
});

describe('ACP driver: frames that are not this session’s', () => {
  it('an error response to an id never sent is one stray_response warning, no harness.error', async () => {
    const { events } = await run('stray error', () => allow);
    expect(warningCodes(events)).toEqual(['acp.stray_response']);
    expect(ofKind(events, 'harness.error')).toEqual([]);
  });

  it('an update for another session is a warning, not a message of this thread', async () => {
    const { events, text } = await run('foreign', () => allow);
    expect(warningCodes(events)).toEqual(['acp.foreign_session']);
    expect(text).toBe('hello');
  });
});
