import { request } from 'node:http';
import { type CanonicalEvent, SCHEMA_VERSION, type StreamEvent } from '@agentlane/contract';
import type { EventWrite, Store } from '@agentlane/store';
import { createParser } from 'eventsource-parser';

/** One message.delta row of a run, as the store is handed it. */
export function deltaWrite(
  runId: string,
  threadId: string,
  key: string,
  seq: number,
  delta: string,
): EventWrite {
  return {
    event: {
      schemaVersion: SCHEMA_VERSION,
      eventId: `${runId}:${key}`,
      seq,
      runId,
      threadId,
      turnId: 'turn_1',
      ts: new Date().toISOString(),
      identity: { provider: 'scripted' },
      kind: 'message.delta',
      payload: { messageId: 'm1', partId: key, delta },
    } as CanonicalEvent,
  };
}

/** Appends `count` message.delta rows of `text` to a run of the thread, 50 rows a commit. */
export async function appendLargeRows(
  store: Store,
  threadId: string,
  runId: string,
  count: number,
  text: string,
): Promise<void> {
  for (let from = 0; from < count; from += 50) {
    const writes = Array.from({ length: Math.min(50, count - from) }, (_, k) =>
      deltaWrite(runId, threadId, `big:${from + k}`, from + k + 1, text),
    );
    await store.appendEvents(threadId, writes, true);
  }
}

/** Waits until the thread's head stops moving (the session's own opening rows land beside a test's). */
export async function settledHead(store: Store, threadId: string): Promise<number> {
  let head = -1;
  for (
    let now = await store.headDeliverySeq(threadId);
    now !== head;
    now = await store.headDeliverySeq(threadId)
  ) {
    head = now;
    await new Promise((r) => setTimeout(r, 300));
  }
  return head;
}

/** Opens a stream and does not read it until `resume()` is called. */
export function stalledSubscriber(url: string, headers: Record<string, string> = {}) {
  const frames: { id?: string; data: StreamEvent }[] = [];
  let ended!: () => void;
  const done = new Promise<void>((r) => {
    ended = r;
  });
  const parser = createParser({ onEvent: (e) => frames.push({ id: e.id, data: JSON.parse(e.data) }) });
  let response: import('node:http').IncomingMessage | undefined;
  const opened = new Promise<void>((resolve) => {
    request(url, { headers }, (res) => {
      response = res;
      res.pause();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.feed(chunk));
      res.on('end', ended);
      res.on('close', ended);
      resolve();
    }).end();
  });
  return { frames, done, opened, resume: () => response?.resume() };
}
