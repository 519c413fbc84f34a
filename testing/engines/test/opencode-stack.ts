import type { StreamEvent } from '@agentlane/contract';
import type { EngineDriver } from '@agentlane/engine-kit';
import { createLane } from '@agentlane/lane';
import type { AuditLedger } from '@agentlane/ledger';
import { createServer } from '@agentlane/server';
import { openStore, type SourceLaneStore } from '@agentlane/store';
import { createParser } from 'eventsource-parser';
import { listenLocal } from './support/server';

/**
 * agentlane as `serve` composes it (SQLite store, lane, HTTP server on 127.0.0.1:0) around given engines;
 * with `audit`, the ledger the lane writes and GET /sessions/:id/audit reads (serve opens it on the same file).
 */
export async function startStack(options: {
  db: string;
  drivers: EngineDriver[];
  workDir: string;
  audit?: AuditLedger;
}) {
  const store = await openStore(options.db);
  const lane = createLane({
    store,
    drivers: options.drivers,
    ownerId: `e2e-${process.pid}-${Date.now()}`,
    pollIntervalMs: 50,
    workDirFor: (thread) => thread.workDir ?? options.workDir,
    ...(options.audit ? { audit: options.audit } : {}),
  });
  await lane.start();
  const server = await createServer({
    store,
    lane,
    ...(options.audit ? { audit: options.audit } : {}),
    engines: { get: (n) => options.drivers.find((d) => d.name === n), list: () => options.drivers },
    defaultWorkDir: options.workDir,
  });
  const api = await listenLocal(server);
  return {
    api,
    store,
    async stop() {
      await server.shutdown().catch(() => {});
      await lane.stop().catch(() => {});
      await store.close().catch(() => {});
    },
  };
}

export async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as unknown) : null };
}

/** Follows a thread's SSE stream and lets a test wait for a condition. */
export class ThreadStream {
  readonly events: StreamEvent[] = [];
  private readonly abort = new AbortController();
  private waiters: (() => void)[] = [];

  constructor(url: string) {
    void this.run(url);
  }

  private async run(url: string): Promise<void> {
    try {
      const res = await fetch(url, { signal: this.abort.signal });
      const parser = createParser({
        onEvent: (e) => {
          this.events.push(JSON.parse(e.data) as StreamEvent);
          for (const w of this.waiters.splice(0)) w();
        },
      });
      const decoder = new TextDecoder();
      // Node's web ReadableStream is async-iterable at run time; the DOM typings in scope do not say so.
      const body = (res.body ?? []) as unknown as AsyncIterable<Uint8Array>;
      for await (const chunk of body) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // closed by the test
    }
  }

  async waitFor(test: (events: StreamEvent[]) => boolean, timeoutMs = 200_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test(this.events)) {
      if (Date.now() > deadline)
        throw new Error(`timed out; saw ${this.events.map((e) => e.type).join(', ')}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 500);
      });
    }
  }

  /** The latest revision of each canonical event of a run, in delivery order. */
  canonical(runId: string) {
    const latest = new Map<string, Extract<StreamEvent, { event: unknown }>>();
    for (const e of this.events) if ('event' in e && e.event.runId === runId) latest.set(e.event.eventId, e);
    return [...latest.values()];
  }

  close(): void {
    this.abort.abort();
  }
}

/**
 * A run's stored frames, each with its raw sidecar entry when it has one: the text (when stored inline), so a
 * test can check the bytes are the engine's own and belong to that frame, and which frames have none.
 */
export async function rawBesideFrames(store: SourceLaneStore, runId: string) {
  const raws = new Map((await store.readRawFrames(runId)).map((r) => [r.nativeSeq, r]));
  const decoder = new TextDecoder();
  return (await store.readFrames(runId)).map((f) => {
    const r = raws.get(f.nativeSeq);
    return {
      nativeSeq: f.nativeSeq,
      frame: f.frame,
      storage: r?.storage ?? null,
      bytes: r?.bytes ?? 0,
      text: r?.content ? decoder.decode(r.content) : null,
    };
  });
}
