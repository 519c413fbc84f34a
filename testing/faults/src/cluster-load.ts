import { randomUUID } from 'node:crypto';
import type { ServeProcess } from '@agentlane/test-engines';
import type { HttpTally } from './http-tally';
import type { SseFollower } from './sse-follower';

export type Serve = ServeProcess & { output(): string };

/** A session of the cluster, followed by a resuming SSE client on the server it was created on. */
export interface FollowedThread {
  id: string;
  follower: SseFollower;
  server: Serve;
}

export const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)] as T;

/**
 * The cluster's load: runs created on random threads through random servers, and session lists, every
 * `everyMs` until stopped; what it created is kept (run → thread) for the checks.
 */
export class RunLoad {
  readonly runIds = new Set<string>();
  readonly threadOf = new Map<string, string>();
  private loading = false;
  private looping: Promise<void> = Promise.resolve();
  private readonly inflight = new Set<Promise<void>>();

  constructor(
    private readonly tally: HttpTally,
    private readonly servers: readonly Serve[],
    private readonly threads: readonly FollowedThread[],
    private readonly everyMs: number,
  ) {}

  start(): void {
    this.loading = true;
    this.looping = this.loop();
  }

  /** Stops creating and waits for what is in flight. */
  async stop(): Promise<void> {
    this.loading = false;
    await this.looping;
    await Promise.all([...this.inflight]);
  }

  /** Stops creating without waiting (the cluster is closing). */
  halt(): void {
    this.loading = false;
  }

  /** Keeps `p` until it settles, so stop() waits for it (and sees it fail, if it does). */
  private track(p: Promise<void>): void {
    this.inflight.add(p);
    const forget = () => this.inflight.delete(p);
    p.then(forget, forget);
  }

  private async loop(): Promise<void> {
    while (this.loading) {
      this.track(this.createRun());
      this.track(this.tally.request(`${pick(this.servers).api}/sessions?limit=5`).then(() => undefined));
      await new Promise((r) => setTimeout(r, this.everyMs));
    }
  }

  /** A client that retries a 503 (or no answer) with the same Idempotency-Key, as the API documents. */
  private async createRun(): Promise<void> {
    const thread = pick(this.threads);
    const key = randomUUID();
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const server = pick(this.servers);
      const res = await this.tally.post(
        `${server.api}/threads/${thread.id}/runs`,
        { prompt: 'stream slowly' },
        { 'idempotency-key': key },
      );
      if (res.status === 200 || res.status === 201) {
        const { runId } = (res.json as { run: { runId: string } }).run;
        this.runIds.add(runId);
        this.threadOf.set(runId, thread.id);
        return;
      }
      if (res.status !== 503 && res.status !== 0) return;
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}
