import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BuiltinDriverConfig,
  type BuiltinServices,
  createDriver,
  defineTool,
  runtimeTranslator,
} from '@agentlane/adapter-builtin';
import { createMemorySaver } from '@agentlane/checkpoints';
import type { AuditableCall, CanonicalEventDraft, JsonValue } from '@agentlane/contract';
import type { TurnIO, TurnOutcome } from '@agentlane/engine-kit';
import { Type } from 'typebox';
import { afterAll, beforeAll } from 'vitest';

/** What one request to the hostile server got: its headers and parsed body. */
export interface HostileRequest {
  headers: IncomingHttpHeaders;
  body: { tools?: unknown[]; messages?: unknown[] } & Record<string, unknown>;
}

/** Answers one request; may stream as long as it likes (`res.closed` tells when the client went away). */
export type Handler = (req: HostileRequest, res: ServerResponse) => void | Promise<void>;

/**
 * A hostile OpenAI Chat Completions server on 127.0.0.1 for a test file: each request takes the next scripted
 * handler (none left: a plain answer `ok`).
 */
export interface HostileServer {
  readonly url: string;
  script(...handlers: Handler[]): void;
  readonly requests: HostileRequest[];
}

export function hostileServer(): HostileServer {
  let queue: Handler[] = [];
  const requests: HostileRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request: HostileRequest = {
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
      };
      requests.push(request);
      const handler = queue.shift() ?? sse([...textFrames('ok')]);
      Promise.resolve(handler(request, res)).catch(() => res.destroy());
    });
  });
  const api = {
    url: '',
    requests,
    script: (...handlers: Handler[]) => {
      queue = handlers;
    },
  };
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return api;
}

/** One Chat Completions chunk as an SSE event. */
/** A model response that calls one tool (id `call_1`) and stops for its result. */
export function toolCallResponse(name: string, args: Record<string, unknown>): Handler {
  return sse([
    ROLE,
    chunk({
      tool_calls: [
        { index: 0, id: 'call_1', type: 'function', function: { name, arguments: JSON.stringify(args) } },
      ],
    }),
    chunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ]);
}

export function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const body = {
    id: 'chatcmpl-h',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

export const ROLE = chunk({ role: 'assistant', content: '' });
export const STOP = [chunk({}, 'stop'), 'data: [DONE]\n\n'];

export function textFrames(text: string): string[] {
  return [ROLE, chunk({ content: text }), ...STOP];
}

/** A handler that streams these SSE frames and ends. */
export function sse(frames: string[], status = 200): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/event-stream' });
    for (const f of frames) res.write(f);
    res.end();
  };
}

/** Writes `frame()` until the client goes away or `limit` (bytes or ms) is reached; tells what it sent. */
export function endless(
  frame: () => string,
  limit: { bytes?: number; ms?: number; intervalMs?: number; head?: string },
  report: (sent: { bytes: number; ms: number; closedByClient: boolean }) => void,
): Handler {
  return async (_req, res) => {
    const started = Date.now();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let bytes = 0;
    if (limit.head) res.write(limit.head);
    while (
      !res.closed &&
      !res.destroyed &&
      bytes < (limit.bytes ?? Number.POSITIVE_INFINITY) &&
      Date.now() - started < (limit.ms ?? Number.POSITIVE_INFINITY)
    ) {
      const f = frame();
      bytes += Buffer.byteLength(f);
      const ok = res.write(f);
      if (limit.intervalMs) await new Promise((r) => setTimeout(r, limit.intervalMs));
      else if (!ok)
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go);
          res.on('close', go);
        });
    }
    const closedByClient = res.closed || res.destroyed;
    report({ bytes, ms: Date.now() - started, closedByClient });
    res.end();
  };
}

/** A workspace folder for a test file. */
export function workspace(prefix: string): { readonly dir: string } {
  const w = { dir: '' };
  beforeAll(async () => {
    w.dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (w.dir) await rm(w.dir, { recursive: true, force: true });
  });
  return w;
}

/**
 * One turn of the built-in engine (Chat Completions, no anchor-plan, no workspace tools unless `over` says)
 * on the hostile server: its native frames, canonical events, ledger rows and latest checkpoint.
 */
export async function runTurn(
  url: string,
  workDir: string,
  over: Partial<BuiltinDriverConfig> = {},
  prompt = 'hi',
  services: BuiltinServices = {},
) {
  const saver = createMemorySaver();
  const driver = createDriver(
    {
      api: 'openai-chat',
      model: 'm',
      baseURL: url,
      apiKey: 'k',
      plan: false,
      workspaceTools: false,
      checkpoints: saver,
      ...over,
    },
    services,
  );
  const frames: JsonValue[] = [];
  const emit = (f: JsonValue) => {
    frames.push(f);
  };
  const session = await driver.openSession({ threadId: 'thr_h', workDir, generation: 1, emit });
  emit({ harness: 'turn.started', prompt });
  const io: TurnIO = {
    emit,
    signal: new AbortController().signal,
    awaitApproval: async () => ({ outcome: 'selected', optionId: 'allow' }),
    awaitQuestion: async () => ({ outcome: 'declined' }),
  };
  const started = Date.now();
  const outcome: TurnOutcome = await session.runTurn(
    { threadId: 'thr_h', runId: 'run_h', turnId: 'run_h', prompt },
    io,
  );
  const ms = Date.now() - started;
  emit({
    harness: 'turn.ended',
    outcome: outcome.outcome,
    ...(outcome.error ? { error: outcome.error } : {}),
  });
  const checkpoint = await saver.getLatest('thr_h');
  return { outcome, ms, frames, checkpoint, ...translate(frames) };
}

function translate(frames: JsonValue[]) {
  const ctx = { threadId: 'thr_h', runId: 'run_h', turnId: 'run_h', provider: 'builtin' };
  let state = runtimeTranslator.initialState(ctx);
  const events: CanonicalEventDraft[] = [];
  const audit: AuditableCall[] = [];
  frames.forEach((frame, i) => {
    const step = runtimeTranslator.translate(
      {
        runId: 'run_h',
        nativeSeq: i + 1,
        receivedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        frame,
      },
      state,
      ctx,
    );
    state = step.state;
    events.push(...step.events.map((e) => e.draft));
    audit.push(...(step.audit ?? []));
  });
  events.push(...runtimeTranslator.finish(state, ctx).events.map((e) => e.draft));
  return { events, audit };
}

/** The harness.warning events of a turn, by code. */
export function warnings(events: CanonicalEventDraft[]): { code: string; message: string }[] {
  return events
    .filter((e) => e.kind === 'harness.warning')
    .map((e) => e.payload as unknown as { code: string; message: string });
}

/** The answers (message.completed texts) of a turn. */
export function answers(r: { events: CanonicalEventDraft[] }): unknown[] {
  return r.events.filter((e) => e.kind === 'message.completed').map((e) => e.payload.text);
}

/** A tool `count` that counts its runs. */
export function counter() {
  const ran = { n: 0 };
  const tool = defineTool({
    name: 'count',
    description: 'counts',
    inputSchema: Type.Object({}),
    execute: async () => {
      ran.n++;
      return 'counted';
    },
  });
  return { ran, tool };
}
