import { execFileSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import type { JsonValue } from '@agentlane/contract';
import type { ApprovalAnswer, EngineSession, OwnedProcess, TurnIO } from '@agentlane/engine-kit';
import { describe, expect, it } from 'vitest';
import { hostileDriver } from './hostile-driver';

// A real process speaking ACP over stdio that misbehaves as its prompt asks.
const { openSession, translate } = hostileDriver('thr_hostile', 'agentlane-acp-hostile-');
// The flood below keeps 2,000 requests pending at once: above the default cap (driver-permission-cap.test.ts).
const wide = hostileDriver('thr_hostile', 'agentlane-acp-hostile-', { maxPendingPermissions: 2000 });

const engineOf = (session: EngineSession) => (session as unknown as { process: OwnedProcess }).process;

function io(
  frames: JsonValue[],
  signal = new AbortController().signal,
  answer?: TurnIO['awaitApproval'],
): TurnIO {
  return {
    emit: (frame) => frames.push(frame),
    signal,
    awaitApproval: answer ?? (async () => ({ outcome: 'cancelled' })),
    awaitQuestion: async () => ({ outcome: 'cancelled' }),
  };
}

const turn = (prompt: string) => ({ threadId: 'thr_hostile', runId: 'run_1', turnId: 'run_1', prompt });

/** Live processes among `pids`, and members of the group `pgid` (killed ones may linger as zombies). */
function alive(pids: number[], pgid: number): number[] {
  return execFileSync('ps', ['-e', '-o', 'pid=,pgid=,stat='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(
      ([pid, group, stat]) =>
        stat !== undefined && !stat.startsWith('Z') && (pids.includes(Number(pid)) || Number(group) === pgid),
    )
    .map(([pid]) => Number(pid));
}

/** A killed process is gone a moment later: wait (boundedly) until none is left. */
async function settleGone(pids: number[], pgid: number): Promise<number[]> {
  for (let i = 0; i < 200 && alive(pids, pgid).length > 0; i++) await new Promise((r) => setTimeout(r, 25));
  return alive(pids, pgid);
}

describe('ACP driver: hostile agents', () => {
  it('a closed stdout breaks the session: the turn throws, isAlive() is false, the engine group is killed', async () => {
    const session = await openSession();
    const engine = engineOf(session);
    await expect(session.runTurn(turn('close stdout'), io([]))).rejects.toThrow(/closed its output/);
    expect(session.isAlive?.()).toBe(false);
    // The agent would stay alive forever; the driver kills it (and its child) without anyone closing the session.
    const exit = await engine.exited;
    expect(exit.signal).toBeTruthy();
    expect(await settleGone([], engine.pid)).toEqual([]);
    // The next turn on this session fails at once and says why; the lane then opens a new engine.
    await expect(session.runTurn(turn('hello'), io([]))).rejects.toThrow(/next run starts a new one/);
    const fresh = await openSession();
    expect(engineOf(fresh).pid).not.toBe(engine.pid);
    expect(await fresh.runTurn(turn('hello'), io([]))).toEqual({ outcome: 'completed' });
  });

  it('a line over the limit breaks the session and kills the engine, which would otherwise go on', async () => {
    const session = await openSession();
    const engine = engineOf(session);
    await expect(session.runTurn(turn('huge line'), io([]))).rejects.toThrow(/longer than 33554432 bytes/);
    expect(session.isAlive?.()).toBe(false);
    const exit = await engine.exited;
    expect(exit.signal).toBeTruthy();
  });

  it('an engine that exits mid-turn leaves no grandchildren behind', async () => {
    const session = await openSession();
    const frames: JsonValue[] = [];
    await expect(session.runTurn(turn('exit mid-turn'), io(frames))).rejects.toThrow(
      /exited during the turn/,
    );
    const said = JSON.stringify(frames).match(/pids (\d+) (\d+)/);
    const pids = [Number(said?.[1]), Number(said?.[2])];
    expect(pids.every((p) => p > 0)).toBe(true);
    await session.close();
    expect(await settleGone(pids, engineOf(session).pid)).toEqual([]);
  });

  it('records lines that are no JSON objects and stray responses as harness warnings (the line cut to 1 KB)', async () => {
    const session = await openSession();
    const frames: JsonValue[] = [];
    expect(await session.runTurn(turn('garbage'), io(frames))).toEqual({ outcome: 'completed' });
    const warnings = translate(frames)
      .filter((e) => e.draft.kind === 'harness.warning')
      .map((e) => e.draft.payload as { code: string; detail?: { line?: string; length?: number } });
    expect(warnings.map((w) => w.code)).toEqual([
      'acp.parse_error',
      'acp.not_an_object',
      'acp.not_an_object',
      'acp.not_an_object',
      'acp.parse_error',
      'acp.stray_response',
    ]);
    expect(warnings.slice(0, 4).map((w) => w.detail?.line)).toEqual(['{garbage', '"str"', 'null', '[1,2,3]']);
    expect(warnings[4]?.detail?.line).toHaveLength(1024);
    expect(warnings[4]?.detail?.length).toBe(5001);
    expect(session.isAlive?.()).toBe(true);
  });

  it('a flood of pending permission requests adds no abort listener per request, and leaves none behind', async () => {
    const session = await wide.openSession();
    const abort = new AbortController();
    const frames: JsonValue[] = [];
    const pending: (() => void)[] = [];
    let listenersWhileAllPending = -1;
    const answer = (): Promise<ApprovalAnswer> =>
      new Promise((resolve) => {
        pending.push(() => resolve({ outcome: 'selected', optionId: 'allow' }));
        // All 2000 requests wait at once; then they are answered.
        if (pending.length === 2000) {
          listenersWhileAllPending = getEventListeners(abort.signal, 'abort').length;
          for (const answerOne of pending) answerOne();
        }
      });
    const outcome = await session.runTurn(turn('permflood 2000'), io(frames, abort.signal, answer));
    expect(outcome).toEqual({ outcome: 'completed' });
    expect(pending).toHaveLength(2000);
    expect(JSON.stringify(frames)).toContain('allowed 2000');
    // The turn's own cancel listener only.
    expect(listenersWhileAllPending).toBe(1);
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
  });
});
