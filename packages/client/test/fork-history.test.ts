import type { CanonicalStreamEvent, ForkedFrom } from '@agentlane/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentlaneClient, forkedFromOf, inForkHistory, readForkHistory } from '../src';
import { ThreadBuilder } from './helpers/events';
import { TestSseServer } from './helpers/sse-server';

/**
 * The history a forked thread continues (the contract's ForkedFrom): its record read from the session's
 * metadata, the rule that picks the origin's events, and the bounded read of the origin's stream.
 */

/** Two runs of the origin: run1's five events at 00:00:01..05, run2's three at 00:00:06..08. */
function origin(): CanonicalStreamEvent[] {
  const b = new ThreadBuilder('origin', 'run1', 'turn1');
  b.emit({ kind: 'turn.started', payload: { prompt: 'first' } });
  b.streamText('m1', 'hello', 5);
  b.emit({ kind: 'message.completed', payload: { messageId: 'm1', role: 'assistant', text: 'hello' } });
  b.runStatus('completed');
  b.emit({ kind: 'turn.completed', payload: { stopReason: 'end_turn' } });
  b.runId = 'run2';
  b.turnId = 'turn2';
  b.emit({ kind: 'turn.started', payload: { prompt: 'second' } });
  b.streamText('m2', 'again', 5);
  return b.frames.filter((f): f is CanonicalStreamEvent => 'event' in f);
}

const second = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
const fork = (over: Partial<ForkedFrom> = {}): ForkedFrom => ({
  threadId: 'origin',
  checkpointId: 'cp',
  stageId: 'tool-loop',
  at: second(3),
  runId: 'run1',
  headSeq: 100,
  ...over,
});
const kept = (f: ForkedFrom) =>
  origin()
    .filter((e) => inForkHistory(e, f))
    .map((e) => e.deliverySeq);

describe('fork history', () => {
  it('reads the record from metadata, and nothing from a record that is not one', () => {
    expect(forkedFromOf({ forkedFrom: { ...fork() } })).toEqual(fork());
    expect(forkedFromOf({ forkedFrom: { ...fork({ runId: null }) } })).toEqual(fork({ runId: null }));
    expect(forkedFromOf(undefined)).toBeUndefined();
    expect(forkedFromOf({})).toBeUndefined();
    expect(forkedFromOf({ forkedFrom: 'origin' })).toBeUndefined();
    // An older record (before the cut was kept) is not a fork this reader can show.
    expect(forkedFromOf({ forkedFrom: { threadId: 'origin', checkpointId: 'cp' } })).toBeUndefined();
    expect(forkedFromOf({ forkedFrom: { ...fork(), stageId: 'later' } })).toBeUndefined();
    expect(forkedFromOf({ forkedFrom: { ...fork(), at: 'yesterday' } })).toBeUndefined();
    expect(forkedFromOf({ forkedFrom: { ...fork(), headSeq: -1 } })).toBeUndefined();
    expect(forkedFromOf({ forkedFrom: { ...fork(), runId: 7 } })).toBeUndefined();
  });

  it('keeps the events first received by the cut, delivered by the fork', () => {
    // A mid-turn checkpoint: the turn's start and the first two of its rows, not the rest.
    expect(kept(fork())).toEqual([1, 2, 3]);
    // The origin's head at the fork bounds it as well.
    expect(kept(fork({ headSeq: 2 }))).toEqual([1, 2]);
    // A turn's last checkpoint: the rest of its run too (its end comes after), not the next run.
    expect(kept(fork({ stageId: 'post-turn' }))).toEqual([1, 2, 3, 4, 5]);
    expect(kept(fork({ stageId: 'post-turn', runId: null }))).toEqual([1, 2, 3]);
    // Wire-only frames are never part of it.
    expect(
      inForkHistory({ type: 'run.status', threadId: 'origin', runId: 'run1', status: 'completed' }, fork()),
    ).toBe(false);
  });

  describe('reading the origin', () => {
    let server: TestSseServer | undefined;
    afterEach(async () => {
      await server?.stop();
    });

    it('reads the stream up to the head it had when forked, then stops', async () => {
      server = new TestSseServer();
      const client = new AgentlaneClient({ url: await server.start() });
      for (const event of origin()) server.push(event);
      const history = await readForkHistory(client, fork({ stageId: 'post-turn', headSeq: 6 }));
      expect(history.map((e) => e.deliverySeq)).toEqual([1, 2, 3, 4, 5]);
      expect(server.connections).toHaveLength(1);
      // An origin with fewer rows than the record says (its head now) ends the read too.
      expect((await readForkHistory(client, fork({ at: second(60), headSeq: 50 }))).length).toBe(8);
      // And one with none at all.
      const empty = new TestSseServer();
      const emptyClient = new AgentlaneClient({ url: await empty.start() });
      expect(await readForkHistory(emptyClient, fork())).toEqual([]);
      await empty.stop();
    });
  });
});
