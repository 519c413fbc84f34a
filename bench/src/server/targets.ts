import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CanonicalEvent } from '@agentlane/contract';
import { PublishHub } from '@agentlane/lane/internal';
import { type AgentlaneServer, createServer, formatSseFrame, type LanePort } from '@agentlane/server';
import { openStore, type Store } from '@agentlane/store';

/** A server under test: a URL to subscribe to and a way to publish a batch of events to every subscriber. */
export interface Target {
  name: string;
  url: string;
  /** Persists (agentlane) and publishes one batch; resolves when handed to the connections. */
  publish(deltas: string[]): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;
const delta = (threadId: string, runId: string, text: string): CanonicalEvent => {
  const i = ++counter;
  return {
    schemaVersion: 1,
    eventId: `ev_${i}`,
    seq: i,
    runId,
    threadId,
    turnId: runId,
    ts: new Date().toISOString(),
    identity: { provider: 'bench' },
    kind: 'message.delta',
    payload: { messageId: 'm1', partId: 'p1', delta: text },
  } as CanonicalEvent;
};

const notUsed = async (): Promise<never> => {
  throw new Error('not used by the benchmark');
};

/**
 * agentlane's real HTTP server on a SQLite store: every batch is committed (appendEvents) before the lane's
 * publish hub hands it to the subscriptions, exactly the lane's persist-then-publish path.
 */
export async function agentlaneTarget(): Promise<
  Target & { store: Store; threadId: string; server: AgentlaneServer }
> {
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-bench-'));
  const store = await openStore(join(dir, 'bench.db'));
  const hub = new PublishHub(store, { headPollMs: 0 });
  const lane: LanePort = {
    subscribe: (threadId, after, listener) => hub.subscribe(threadId, after, listener),
    createRun: notUsed,
    cancelRun: notUsed,
    answerApproval: notUsed,
    answerQuestion: notUsed,
  };
  const server = await createServer({
    store,
    lane,
    engines: { get: () => undefined, list: () => [] },
    maxBufferBytes: 4 * 1024 * 1024,
    slowConsumerMs: 30_000,
    maxBurstBytes: 64 * 1024 * 1024,
    // One load client holds thousands of streams and reconnects them at once: not a tenant to limit.
    limits: {
      maxConnections: 20_000,
      maxStreamsPerToken: 20_000,
      requestsPerSecond: 100_000,
      requestBurst: 100_000,
    },
  });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (server.app.server.address() as { port: number }).port;
  const threadId = 'bench-thread';
  await store.createThread({ threadId, engine: 'bench', title: null, workDir: null, metadata: {} });
  const { run } = await store.createRun({ threadId, prompt: 'bench' });
  return {
    name: 'agentlane',
    url: `http://127.0.0.1:${port}/api/harness/threads/${threadId}/events`,
    store,
    threadId,
    server,
    async publish(deltas) {
      const { inserted } = await store.appendEvents(
        threadId,
        deltas.map((d) => ({ event: delta(threadId, run.runId, d) })),
        true,
      );
      hub.publishRows(threadId, inserted);
    },
    async close() {
      await server.shutdown();
      hub.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The baseline: a bare node:http SSE broadcaster writing the same frames, no persistence, no framework. */
export async function bareTarget(): Promise<Target> {
  const clients = new Set<ServerResponse>();
  let seq = 0;
  const server: Server = createHttpServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(formatSseFrame({ event: 'stream.opened', data: JSON.stringify({ type: 'stream.opened' }) }));
    clients.add(res);
    req.on('close', () => clients.delete(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    name: 'bare node:http',
    url: `http://127.0.0.1:${port}/events`,
    async publish(deltas) {
      for (const d of deltas) {
        seq++;
        const event = delta('t', 'r', d);
        const frame = formatSseFrame({
          id: seq,
          event: 'message.delta',
          data: JSON.stringify({
            type: 'message.delta',
            deliverySeq: seq,
            revision: 1,
            provisional: true,
            event,
          }),
        });
        for (const res of clients) res.write(frame);
      }
    },
    async close() {
      for (const res of clients) res.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
