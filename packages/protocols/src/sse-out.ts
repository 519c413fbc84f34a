import type { ServerContext } from '@agentlane/server';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Open protocol streams of one server, ended when it shuts down (hijacked replies are not Fastify's). */
export type StreamRegistry = Set<SseOut>;

/**
 * One protocol SSE response (AI SDK UI message stream, AG-UI). Writes are bounded like agentlane's own
 * streams: a client that stops reading is dropped past `maxBurstBytes` unsent, and resumes from the store.
 * It holds one of the client's stream slots while open, as a thread stream does (holdStreamSlot: over the cap
 * the constructor throws the 429 before anything is written, unless the route took the slot first).
 */
export class SseOut {
  #closed = false;
  readonly #closeListeners: (() => void)[] = [];
  readonly #heartbeat: NodeJS.Timeout;

  constructor(
    private readonly reply: FastifyReply,
    headers: Record<string, string>,
    private readonly ctx: ServerContext,
    private readonly registry: StreamRegistry,
  ) {
    this.#closeListeners.push(holdStreamSlot(ctx, reply));
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { ...headers, 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    res.on('close', () => this.#markClosed());
    registry.add(this);
    // An SSE comment: both protocols' parsers skip it; proxies keep the idle connection open.
    this.#heartbeat = setInterval(() => this.write(': heartbeat\n\n'), ctx.sse.heartbeatMs);
    this.#heartbeat.unref();
  }

  get closed(): boolean {
    return this.#closed;
  }

  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#closeListeners.push(listener);
  }

  write(text: string): void {
    if (this.#closed || text === '') return;
    const res = this.reply.raw;
    res.write(text);
    if (res.writableLength > this.ctx.sse.maxBurstBytes) {
      this.#markClosed();
      res.destroy();
    }
  }

  end(text = ''): void {
    if (this.#closed) return;
    this.write(text);
    this.#markClosed();
    const res = this.reply.raw;
    res.end();
    const timer = setTimeout(() => res.destroy(), 2000);
    timer.unref();
    res.once('finish', () => clearTimeout(timer));
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.registry.delete(this);
    for (const listener of this.#closeListeners.splice(0)) listener();
  }
}

/** The slot each request holds for its stream (one per request, whoever took it first). */
const heldSlots = new WeakMap<FastifyRequest, () => void>();

/**
 * Takes one of the client's stream slots for the stream this request answers with, once per request: a route
 * that creates a run calls it before creating anything (over the cap: the 429, and no run; checking and
 * taking it only when the stream opens let concurrent POSTs all pass the check and create their runs: 8 runs
 * for 2 slots), and SseOut calls it again, which then only finds the slot. The slot goes back when the
 * response closes, whether a stream was written or an error. Returns its release (idempotent).
 */
export function holdStreamSlot(ctx: ServerContext, reply: FastifyReply): () => void {
  const held = heldSlots.get(reply.request);
  if (held) return held;
  const release = ctx.streamSlots.acquire(reply.request);
  let released = false;
  const once = () => {
    if (released) return;
    released = true;
    release();
  };
  heldSlots.set(reply.request, once);
  reply.raw.once('close', once);
  return once;
}
