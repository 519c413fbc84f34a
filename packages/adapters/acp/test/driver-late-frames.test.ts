import type { JsonValue } from '@agentlane/contract';
import type { EngineSession, OwnedProcess, TranslatedEvent, TurnIO } from '@agentlane/engine-kit';
import { describe, expect, it } from 'vitest';
import { Frames } from './frame-log';
import { hostileDriver } from './hostile-driver';

// A real ACP agent over stdio that goes on talking after it answered its prompt (`late …`, hostile-agent.mjs):
// a message chunk, a tool call, a permission request, a command catalog and an extension notification, sent in
// the write of the answer,
// between turns, or at the start of the next turn (before its prompt). Each run's frames are what the lane
// stores for it: turn.started, then what the session emitted between turns, then the turn's own.
const plain = hostileDriver('thr_late', 'agentlane-acp-late-');
const withModes = hostileDriver('thr_late', 'agentlane-acp-late-', { agentArgs: ['--modes'] });

type Draft = TranslatedEvent['draft'];
type Wire = { dir?: string; msg?: { id?: unknown; method?: string } };
const wire = (f: JsonValue) => f as Wire;
/** The client's answer to the late permission request has been recorded. */
const lateAnswered = (frames: JsonValue[]) =>
  frames.some(
    (f) => wire(f).dir === 'client->agent' && wire(f).msg?.id === 'late-perm' && !wire(f).msg?.method,
  );

/** A session whose frames outside a turn wait, as the lane keeps them, for the next run. */
class Thread {
  readonly between = new Frames();
  /** The approval ids the driver asked the user about, in any run. */
  readonly asked: string[] = [];
  private taken = 0;
  private constructor(readonly session: EngineSession) {}

  static async open(driver: ReturnType<typeof hostileDriver>): Promise<Thread> {
    let thread: Thread | undefined;
    const early: JsonValue[] = [];
    const session = await driver.openSession((f) => (thread ? thread.between.push(f) : early.push(f)));
    thread = new Thread(session);
    for (const f of early) thread.between.push(f);
    return thread;
  }

  get pid(): number {
    return (this.session as unknown as { process: OwnedProcess }).process.pid;
  }

  /** One run: its stored frames (and the translation of them alone, as the run's final pass makes it). */
  async run(
    driver: ReturnType<typeof hostileDriver>,
    prompt: string,
    mode?: string,
  ): Promise<{ frames: JsonValue[]; events: Draft[] }> {
    const waited = this.between.list.slice(this.taken);
    this.taken = this.between.list.length;
    const frames: JsonValue[] = [{ harness: 'turn.started', prompt }, ...waited];
    const io: TurnIO = {
      emit: (f) => frames.push(f),
      signal: new AbortController().signal,
      awaitApproval: async (approvalId) => {
        this.asked.push(approvalId);
        return { outcome: 'selected', optionId: 'allow', answeredBy: 'user' };
      },
      awaitQuestion: async () => ({ outcome: 'cancelled' }),
    };
    const turn = { threadId: 'thr_late', runId: 'run_1', turnId: 'run_1', prompt, ...(mode ? { mode } : {}) };
    expect(await this.session.runTurn(turn, io)).toEqual({ outcome: 'completed' });
    // What the session emitted after runTurn returned and before the lane took it back: still this run's.
    frames.push(...this.between.list.slice(this.taken));
    this.taken = this.between.list.length;
    return { frames, events: driver.translate(frames).map((e) => e.draft) };
  }
}

/**
 * One warning for the burst; the extension notification is not turn content (agents send some after a turn),
 * so it stays what it always was, a notification agentlane does not translate.
 */
const LATE_WARNINGS = ['acp.late_frames', 'acp.unhandled_notification'];
const texts = (events: Draft[]) =>
  events
    .filter((e) => e.kind === 'message.completed' && (e.payload as { role?: string }).role === 'assistant')
    .map((e) => (e.payload as { text: string }).text);
const warningCodes = (events: Draft[]) =>
  events.filter((e) => e.kind === 'harness.warning').map((e) => (e.payload as { code: string }).code);
const kinds = (events: Draft[]) => new Set(events.map((e) => e.kind));
const commandNames = (events: Draft[]) =>
  events
    .filter((e) => e.kind === 'commands.updated')
    .flatMap((e) => (e.payload as { commands: { name: string }[] }).commands.map((c) => c.name));

/** Nothing of the late output shows in a run's events: no text, no tool, no approval. */
function expectNoLateOutput(events: Draft[]): void {
  const all = JSON.stringify(events);
  expect(all).not.toContain('late text');
  expect(all).not.toContain('late-tool');
  expect(kinds(events).has('approval.requested')).toBe(false);
  expect(kinds(events).has('approval.resolved')).toBe(false);
}

describe('ACP driver: output the agent sends after it answered its prompt', () => {
  it('in the write of the answer: not the turn’s output, one warning, the permission cancelled unasked', async () => {
    const thread = await Thread.open(plain);
    const one = await thread.run(plain, 'late now');
    expect(texts(one.events)).toEqual(['on time']);
    expectNoLateOutput(one.events);
    expect(warningCodes(one.events)).toEqual(LATE_WARNINGS);
    // The command catalog sets the session's state, whenever it comes.
    expect(commandNames(one.events)).toContain('late');
    const two = await thread.run(plain, 'report');
    expect(texts(two.events)).toEqual(['late permission: cancelled']);
    expectNoLateOutput(two.events);
    expect(warningCodes(two.events)).toEqual([]);
    expect(thread.asked).toEqual([]);
  });

  it('between turns: kept for the next run, which shows none of it', async () => {
    const thread = await Thread.open(plain);
    const one = await thread.run(plain, 'late signal');
    expect(texts(one.events)).toEqual(['on time']);
    expect(warningCodes(one.events)).toEqual([]);
    // No turn runs now: the agent sends its late output when told to, and the driver answers its request.
    process.kill(thread.pid, 'SIGUSR1');
    await thread.between.until(lateAnswered);
    const two = await thread.run(plain, 'report');
    expect(texts(two.events)).toEqual(['late permission: cancelled']);
    expectNoLateOutput(two.events);
    expect(warningCodes(two.events)).toEqual(LATE_WARNINGS);
    expect(commandNames(two.events)).toContain('late');
    expect(thread.asked).toEqual([]);
  });

  it('at the start of the next turn, before its prompt is sent: not that turn’s output either', async () => {
    const thread = await Thread.open(withModes);
    const one = await thread.run(withModes, 'late mode');
    expect(texts(one.events)).toEqual(['on time']);
    // The next run asks for a mode first: the agent sends its late output before it answers session/set_mode.
    const two = await thread.run(withModes, 'report', 'code');
    const methods = two.frames.map((f) => wire(f).msg?.method);
    expect(methods.indexOf('session/set_mode')).toBeLessThan(methods.indexOf('session/request_permission'));
    expect(methods.indexOf('session/request_permission')).toBeLessThan(methods.indexOf('session/prompt'));
    expect(texts(two.events)).toEqual(['late permission: cancelled']);
    expectNoLateOutput(two.events);
    expect(warningCodes(two.events)).toEqual(LATE_WARNINGS);
    expect(thread.asked).toEqual([]);
  });

  it('what the agent sends before its answer stays the turn’s own, in every run of the session', async () => {
    const thread = await Thread.open(plain);
    for (const prompt of ['hello', 'hello', 'hello']) {
      const run = await thread.run(plain, prompt);
      expect(texts(run.events)).toEqual(['hello']);
      expect(warningCodes(run.events)).toEqual([]);
    }
  });
});
