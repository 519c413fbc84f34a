import type { CanonicalStreamEvent, StreamEvent } from '@agentlane/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentlaneClient, ApiError, type ConnectionState } from '../src';
import { ThreadBuilder } from './helpers/events';
import { send, TestSseServer } from './helpers/sse-server';

let server: TestSseServer;
let client: AgentlaneClient;

beforeEach(async () => {
  server = new TestSseServer();
  client = new AgentlaneClient({ url: await server.start() });
});
afterEach(async () => {
  await server.stop();
});

function deltas(count: number) {
  const b = new ThreadBuilder();
  for (let i = 0; i < count; i++) {
    b.emit({ kind: 'message.delta', payload: { messageId: 'm', partId: 'p', delta: `${i},` } });
  }
  return b.frames.filter((f): f is CanonicalStreamEvent => f.type === 'message.delta');
}

async function collect(
  iterable: AsyncIterable<StreamEvent>,
  until: (events: StreamEvent[]) => boolean,
): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of iterable) {
    events.push(event);
    if (until(events)) break;
  }
  return events;
}

const seqs = (events: StreamEvent[]) =>
  events.flatMap((e) => ('deliverySeq' in e && e.type !== 'run.status' ? [e.deliverySeq] : []));

describe('subscribeThread', () => {
  it('replays after the cursor, then follows live frames', async () => {
    const frames = deltas(6);
    for (const f of frames.slice(0, 3)) server.push(f);
    server.onConnect = () =>
      setTimeout(() => {
        for (const f of frames.slice(3)) server.push(f);
      }, 20);
    const events = await collect(client.subscribeThread('th1', { after: 1 }), (e) => seqs(e).length === 5);
    expect(events[0]?.type).toBe('stream.opened');
    expect(seqs(events)).toEqual([2, 3, 4, 5, 6]);
  });

  it('reconnects after a drop with Last-Event-ID and never yields a row twice', async () => {
    const frames = deltas(10);
    for (const f of frames.slice(0, 3)) server.frames.push(f);
    server.onConnect = (connection, index) => {
      if (index === 0) {
        // the first connection dies after three frames, with a duplicate and an unknown type in it
        send(connection.response, frames[0]!);
        send(connection.response, { type: 'something.new', deliverySeq: 99 });
        setTimeout(() => {
          connection.response.destroy();
          server.frames.push(...frames.slice(3));
        }, 20);
      }
    };
    const states: ConnectionState[] = [];
    const events = await collect(
      client.subscribeThread('th1', { onState: (s) => states.push(s), backoff: { initialMs: 5, maxMs: 20 } }),
      (e) => seqs(e).includes(10),
    );
    expect(seqs(events)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(events.some((e) => (e.type as string) === 'something.new')).toBe(false);
    expect(server.connections.length).toBeGreaterThanOrEqual(2);
    const second = server.connections[1]!;
    expect(second.lastEventIdHeader).toBe('3');
    expect(states.map((s) => s.status)).toContain('reconnecting');
    expect(states.map((s) => s.status)).toContain('catching-up');
  });

  it('honours stream.closing retryMs and reports catching up from the cursor', async () => {
    const frames = deltas(4);
    for (const f of frames.slice(0, 2)) server.frames.push(f);
    server.onConnect = (connection, index) => {
      if (index === 0) {
        send(connection.response, { type: 'stream.closing', reason: 'shutdown', retryMs: 30 });
        connection.response.end();
        server.frames.push(...frames.slice(2));
      }
    };
    const states: ConnectionState[] = [];
    const events = await collect(
      client.subscribeThread('th1', { onState: (s) => states.push(s), backoff: { initialMs: 10_000 } }),
      (e) => seqs(e).includes(4),
    );
    expect(seqs(events)).toEqual([1, 2, 3, 4]);
    expect(states).toContainEqual(expect.objectContaining({ status: 'reconnecting', delayMs: 30 }));
    expect(states).toContainEqual({ status: 'catching-up', from: 2, head: 4 });
    expect(states).toContainEqual({ status: 'live', after: 4 });
  });

  it('ends with an ApiError on a permanent refusal and quietly on abort', async () => {
    server.refuseWith = 403;
    await expect(collect(client.subscribeThread('th1'), () => false)).rejects.toBeInstanceOf(ApiError);
    server.refuseWith = undefined;
    const controller = new AbortController();
    const states: ConnectionState[] = [];
    // Aborted once the stream is open (a timer 10 ms after the connection could fire before the first frame
    // arrived on a loaded machine, and the test saw no event at all).
    const events = await collect(
      client.subscribeThread('th1', { signal: controller.signal, onState: (s) => states.push(s) }),
      (seen) => {
        if (seen.length === 1) controller.abort();
        return false;
      },
    );
    expect(events.map((e) => e.type)).toEqual(['stream.opened']);
    expect(states[states.length - 1]?.status).toBe('closed');
  });

  it('retries a server error with backoff until the server answers', async () => {
    server.refuseWith = 503;
    server.frames.push(...deltas(1));
    setTimeout(() => {
      server.refuseWith = undefined;
    }, 60);
    const events = await collect(
      client.subscribeThread('th1', { backoff: { initialMs: 10, maxMs: 20 } }),
      (e) => seqs(e).includes(1),
    );
    expect(seqs(events)).toEqual([1]);
  });
});
