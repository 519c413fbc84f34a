import { expect } from 'vitest';
import type { SuiteContext } from './context';

/** SignalStore: commits and signals heard across stores of one database. */
export function signalTests(s: SuiteContext): void {
  const { test, newThread, newRun, event } = s;

  test('onCommitted: in-process listeners hear each commit with the new head; unsubscribe stops them', async ({
    store,
  }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const heard: [string, number][] = [];
    const stop = store.onCommitted((t, head) => heard.push([t, head]));
    await store.appendEvents(threadId, [event(threadId, runId, 1), event(threadId, runId, 2)], true);
    expect(heard).toEqual([[threadId, 2]]);
    await store.appendEvents(threadId, [event(threadId, runId, 1)], true);
    expect(heard).toHaveLength(1);
    stop();
    await store.appendEvents(threadId, [event(threadId, runId, 3)], true);
    expect(heard).toHaveLength(1);
  });

  test('onCommitted: commits of another store on the same database wake this one', async ({ store, fx }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const peer = await fx.openPeer();
    const heard: number[] = [];
    const stop = store.onCommitted((t, head) => {
      if (t === threadId) heard.push(head);
    });
    // Give the listening side (LISTEN connection, poller) time to start.
    await new Promise((r) => setTimeout(r, 200));
    await peer.appendEvents(threadId, [event(threadId, runId, 1)], true);
    for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    stop();
    expect(heard).toEqual([1]);
  });

  test('signals: another store on the same database hears a broadcast signal; the sender does not', async ({
    store,
    fx,
  }) => {
    const peer = await fx.openPeer();
    const heardByPeer: [string, unknown][] = [];
    const heardBySender: unknown[] = [];
    const stopPeer = peer.onSignal((t, signal) => heardByPeer.push([t, signal]));
    const stopSelf = store.onSignal((_t, signal) => heardBySender.push(signal));
    await new Promise((r) => setTimeout(r, 200));
    const signal = { type: 'run.status', threadId: 'thr with space', runId: 'r1', status: 'running' };
    await store.broadcastSignal('thr with space', signal);
    for (let i = 0; i < 100 && heardByPeer.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    stopPeer();
    stopSelf();
    expect(heardByPeer).toEqual([['thr with space', signal]]);
    expect(heardBySender).toEqual([]);
  });
}
