import { initialTimelineState, reduceTimelineBatch } from '@agentlane/client';
import { StreamFrames } from '@agentlane/client/testing';
import { describe, expect, it } from 'vitest';
import { rowStatus, statusFromState } from '../../src/thread-status';

/** The open thread's sidebar status: the stream's where it knows one, else the server's activity. */

/** A settled turn as a replay from `after=0` carries it: canonical rows only, no run signals. */
function replayedTurn(): StreamFrames {
  const b = new StreamFrames();
  b.emit({ kind: 'turn.started', payload: { prompt: 'hello' } });
  b.streamText('m1', 'Echo: hello');
  b.emit({ kind: 'message.completed', payload: { messageId: 'm1', role: 'assistant', text: 'Echo: hello' } });
  b.emit({ kind: 'turn.completed', payload: { stopReason: 'end_turn' } });
  return b;
}

describe('the open thread’s status in the sidebar', () => {
  it('is the server’s when the stream replayed a settled thread (no run signal seen)', () => {
    const state = reduceTimelineBatch(initialTimelineState(), replayedTurn().frames);
    expect(statusFromState(state)).toBeUndefined();
    expect(rowStatus(statusFromState(state), 'done')).toBe('done');
    expect(rowStatus(statusFromState(state), 'failed')).toBe('failed');
    // A thread with no run at all, by both accounts, is new.
    expect(rowStatus(statusFromState(initialTimelineState()), undefined)).toBe('idle');
    expect(rowStatus(statusFromState(initialTimelineState()), 'idle')).toBe('idle');
  });

  it('is the stream’s once it saw the run (fresher than the last poll)', () => {
    const b = replayedTurn();
    b.runStatus('running');
    const running = reduceTimelineBatch(initialTimelineState(), b.frames);
    expect(rowStatus(statusFromState(running), 'done')).toBe('running');
    b.canonicalized('failed');
    const failed = reduceTimelineBatch(initialTimelineState(), b.frames);
    expect(rowStatus(statusFromState(failed), 'running')).toBe('failed');
  });
});
