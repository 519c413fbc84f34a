import type { JsonValue } from '@agentlane/contract';
import type { NativeFrameRecord, TranslatedEvent, TurnIO } from '@agentlane/engine-kit';
import { describe, expect, it } from 'vitest';
import { createDriver, frameTimes, readTrace, recordedSessions, translatorFor } from '../src';

const CTX = { threadId: 'thr_replay', runId: 'run_replay', turnId: 'run_replay', provider: 'replay' };

function translate(provider: string, frames: JsonValue[], runId = CTX.runId): TranslatedEvent[] {
  const translator = translatorFor(provider);
  const ctx = { ...CTX, runId, turnId: runId, provider };
  let state = translator.initialState(ctx);
  const events: TranslatedEvent[] = [];
  frames.forEach((frame, i) => {
    const record: NativeFrameRecord = {
      runId,
      nativeSeq: i + 1,
      receivedAt: new Date(Date.UTC(2026, 0, 1) + i * 10).toISOString(),
      frame,
    };
    const step = translator.translate(record, state, ctx);
    state = step.state;
    events.push(...step.events);
  });
  events.push(...translator.finish(state, ctx).events);
  return events;
}

function collectingIO(signal = new AbortController().signal): TurnIO & { frames: JsonValue[] } {
  const frames: JsonValue[] = [];
  return {
    frames,
    signal,
    emit: (frame) => frames.push(frame),
    awaitApproval: async () => ({ outcome: 'cancelled' }),
    awaitQuestion: async () => ({ outcome: 'cancelled' }),
  };
}

const TURN = { threadId: CTX.threadId, runId: CTX.runId, turnId: CTX.turnId, prompt: 'replay it' };

describe('replay engine', () => {
  for (const session of recordedSessions()) {
    it(`replaying ${session.name} yields the same canonical sequence as translating it directly`, async () => {
      const driver = createDriver({ trace: session.trace, provider: session.provider, speed: 0 });
      expect(driver.label).toMatch(/replay/i);
      const opened = await driver.openSession({
        threadId: CTX.threadId,
        workDir: '/tmp',
        generation: 1,
        emit: () => {},
      });
      const io = collectingIO();
      expect(await opened.runTurn(TURN, io)).toEqual({ outcome: 'completed' });
      const direct = translate(session.provider, readTrace(session.trace));
      const replayed = translate(session.provider, io.frames);
      expect(replayed).toEqual(direct);
      expect(direct.length).toBeGreaterThan(10);
      expect(direct.filter((e) => e.draft.kind === 'turn.completed')).toHaveLength(1);
    });
  }

  for (const session of recordedSessions()) {
    it(`${session.name}: a second turn mints its own ids, the first plays them as recorded`, async () => {
      const driver = createDriver({ trace: session.trace, provider: session.provider, speed: 0 });
      const opened = await driver.openSession({
        threadId: 't',
        workDir: '/tmp',
        generation: 1,
        emit: () => {},
      });
      const turns = [];
      for (const runId of ['run_one', 'run_two']) {
        const io = collectingIO();
        await opened.runTurn({ ...TURN, runId, turnId: runId }, io);
        turns.push({ frames: io.frames, events: translate(session.provider, io.frames, runId) });
      }
      const [one, two] = turns as [(typeof turns)[0], (typeof turns)[0]];
      expect(one.frames).toEqual(readTrace(session.trace));
      const first = idsOf(one.events);
      expect(first.length).toBeGreaterThan(3);
      expect(idsOf(two.events).filter((id) => first.includes(id))).toEqual([]);
      // Within the turn every id moved the same way: the turn is the first one under its own ids.
      const renamed = JSON.stringify(two.events).replaceAll('-run_two', '').replaceAll('run_two', 'run_one');
      expect(JSON.parse(renamed)).toEqual(one.events);
      // A session reopened from its binding has played before: its first turn mints its own ids too.
      const reopened = await driver.openSession({
        threadId: 't',
        workDir: '/tmp',
        generation: 2,
        previous: opened.binding,
        emit: () => {},
      });
      const io = collectingIO();
      await reopened.runTurn({ ...TURN, runId: 'run_three', turnId: 'run_three' }, io);
      const third = idsOf(translate(session.provider, io.frames, 'run_three'));
      expect(third.filter((id) => first.includes(id) || idsOf(two.events).includes(id))).toEqual([]);
    });
  }

  it('keeps the recorded timing, scaled by speed, and stops on cancel', async () => {
    const frames: JsonValue[] = [
      { t: 0, x: 1 },
      { t: 200, x: 2 },
      { t: 400, x: 3 },
    ];
    const driver = createDriver({ trace: frames, provider: 'opencode', speed: 2 });
    const session = await driver.openSession({
      threadId: 't',
      workDir: '/tmp',
      generation: 1,
      emit: () => {},
    });
    const started = Date.now();
    const io = collectingIO();
    await session.runTurn(TURN, io);
    const elapsed = Date.now() - started;
    expect(io.frames).toHaveLength(3);
    expect(elapsed).toBeGreaterThanOrEqual(190);

    const abort = new AbortController();
    const slow = createDriver({ trace: [{ t: 0 }, { t: 60_000 }], provider: 'opencode' });
    const s2 = await slow.openSession({ threadId: 't', workDir: '/tmp', generation: 1, emit: () => {} });
    const io2 = collectingIO(abort.signal);
    const running = s2.runTurn(TURN, io2);
    setTimeout(() => abort.abort(), 20);
    expect(await running).toEqual({ outcome: 'cancelled' });
    expect(io2.frames).toHaveLength(1);
  });

  it('reads OpenCode event-id time and wire `t` for pacing', () => {
    const oc = readTrace(recordedSessions()[0]?.trace ?? '');
    const times = frameTimes(oc);
    expect(times[0]).toBe(0);
    expect(times.at(-1)).toBeGreaterThan(1000);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(frameTimes([{ t: 5 }, { t: 50 }])).toEqual([5, 50]);
  });
});

/** The ids of messages, parts, reasoning, tool calls and requests the events name. */
function idsOf(events: TranslatedEvent[]): string[] {
  const keys = ['messageId', 'partId', 'reasoningId', 'toolCallId', 'approvalId', 'questionId'];
  const ids = new Set<string>();
  for (const { draft } of events) {
    const payload = draft.payload as Record<string, unknown>;
    for (const key of keys) if (typeof payload[key] === 'string') ids.add(payload[key] as string);
  }
  return [...ids];
}

/** approval/question ids requested in `events` that no resolution answers. */
function stillOpen(events: TranslatedEvent[]): string[] {
  const open = new Set<string>();
  for (const { draft } of events) {
    if (draft.kind === 'approval.requested') open.add(draft.payload.approvalId);
    else if (draft.kind === 'approval.resolved') open.delete(draft.payload.approvalId);
    else if (draft.kind === 'question.requested') open.add(draft.payload.questionId);
    else if (draft.kind === 'question.resolved') open.delete(draft.payload.questionId);
  }
  return [...open];
}

// What the web UI's "waiting on you" bar reads: however a replayed run ends (played through, or cancelled,
// failed at any frame), no request stays open after the turn, since nobody could answer it any more.
describe('recorded sessions leave no approval or question open at turn end', () => {
  for (const session of recordedSessions()) {
    it(`${session.name}: at every frame the run may end at`, () => {
      const frames = readTrace(session.trace);
      let requested = 0;
      for (let cut = 0; cut <= frames.length; cut++) {
        for (const outcome of ['completed', 'failed', 'cancelled'] as const) {
          const events = translate(session.provider, [
            { harness: 'turn.started', prompt: 'replay it' },
            ...frames.slice(0, cut),
            ...(outcome === 'cancelled' ? [{ harness: 'turn.cancel_requested' } as JsonValue] : []),
            { harness: 'turn.ended', outcome },
          ]);
          expect(stillOpen(events), `${outcome} after ${cut} frames`).toEqual([]);
          requested += events.filter((e) => e.draft.kind === 'approval.requested').length;
        }
      }
      // The ACP recordings each ask for one permission; the check is not vacuous there.
      if (session.provider === 'acp') expect(requested).toBeGreaterThan(0);
    });
  }
});
