import type { DeliveryRow, JsonObject, StreamEvent } from '@agentlane/contract';
import type { EventStore, OutboxStore, RunStore, SignalStore } from '@agentlane/store';
import {
  completionSignals,
  type HubSignal,
  isHubSignal,
  missedSignals,
  type ThreadWatch,
} from './hub-signals.js';
import {
  type HubSubscription,
  rowToStreamEvent,
  Subscription,
  type SubscriptionHost,
} from './hub-subscription.js';
import type { SubscriptionFlow } from './types.js';

export type { HubSignal } from './hub-signals.js';
export { type HubSubscription, rowToStreamEvent } from './hub-subscription.js';

/** How long a subscribe waits for the store to hear other processes before it answers anyway. */
const LISTENING_WAIT_MS = 5000;

export interface HubOptions {
  /** Rows read per store query during replay / catch-up; the event loop runs between pages. Default 2000. */
  pageSize?: number;
  /**
   * Poll the head of subscribed threads this often, for commits of other processes that the store's
   * onCommitted does not report (SQLite is in-process only). 0 disables. Default 250 ms.
   */
  headPollMs?: number;
  onListenerError?: (err: unknown) => void;
}

/**
 * The publish hub: per-thread subscriptions that are only ever handed committed rows.
 *
 * Each subscription keeps a cursor (the last deliverySeq handed out). Rows arrive two ways: pushed by this
 * process right after its own commits (the fast path: no read), or read from the store when the subscription
 * is replaying, when a pushed batch does not start right after the cursor, or when the store reports a
 * commit this process did not push (another process). While a read is in flight, pushed rows and signals are
 * buffered and afterwards de-duplicated by deliverySeq, so replay turns into live with no gap and no duplicate.
 */
export class PublishHub implements SubscriptionHost {
  private readonly threads = new Map<string, Set<Subscription>>();
  private readonly watches = new Map<string, ThreadWatch>();
  private readonly unlisten: () => void;
  private readonly unlistenSignals: () => void;
  private readonly unlistenListening: () => void;
  private readonly pollTimer: NodeJS.Timeout | null;
  readonly pageSize: number;
  private closed = false;

  constructor(
    private readonly store: SignalStore & EventStore & RunStore & OutboxStore,
    private readonly options: HubOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 2000;
    this.unlisten = store.onCommitted((threadId, head) => this.wake(threadId, head));
    this.unlistenSignals = store.onSignal((threadId, signal) => {
      if (isHubSignal(signal) && signal.threadId === threadId) this.deliverSignal(threadId, signal);
    });
    // Each time the store starts hearing other processes again (a database restart, a dropped LISTEN
    // connection), what they broadcast meanwhile is lost: read it back from the store.
    this.unlistenListening = store.onListening(() => {
      this.resync().catch((err) => this.options.onListenerError?.(err));
    });
    const pollMs = options.headPollMs ?? 250;
    this.pollTimer = pollMs > 0 ? setInterval(() => void this.pollHeads(), pollMs) : null;
    this.pollTimer?.unref();
  }

  /** Rows this process just committed, in deliverySeq order. */
  publishRows(threadId: string, rows: readonly DeliveryRow[]): void {
    if (rows.length === 0) return;
    const subs = this.threads.get(threadId);
    if (!subs) return;
    // One wire object per row, shared by every subscriber (listeners must not mutate what they are handed):
    // with 100 subscribers this was 100 copies of every row.
    const events = rows.map(rowToStreamEvent);
    for (const sub of subs) sub.offerRows(rows, events);
  }

  /**
   * A run's status or completion: to this process's subscribers at once, and through the store to the other
   * processes sharing the database (their subscribers would otherwise never hear it: a signal is not a row).
   */
  publishSignal(threadId: string, signal: HubSignal): void {
    this.deliverSignal(threadId, signal);
    this.store
      .broadcastSignal(threadId, signal as unknown as JsonObject)
      .catch((err) => this.options.onListenerError?.(err));
  }

  /**
   * Hands a signal to the thread's subscribers unless they had it already: a run.status whose statusVersion
   * is not above the last one handed out (stale, or heard twice: live and re-read after a reconnect), or a
   * run.canonicalized covering no more than the last one of its run.
   */
  private deliverSignal(threadId: string, signal: HubSignal): void {
    const subs = this.threads.get(threadId);
    const watch = this.watches.get(threadId);
    if (!subs || !watch) return;
    if (signal.type === 'run.status') {
      if (signal.statusVersion !== undefined) {
        if (signal.statusVersion <= (watch.statusVersions.get(signal.runId) ?? 0)) return;
        watch.statusVersions.set(signal.runId, signal.statusVersion);
      }
    } else {
      if (signal.lastDeliverySeq <= (watch.completions.get(signal.runId) ?? -1)) return;
      watch.completions.set(signal.runId, signal.lastDeliverySeq);
    }
    for (const sub of subs) sub.offerSignal(signal);
  }

  /**
   * Catches the subscribers up with the signals they may have missed while the store could not hear other
   * processes: every run of a served thread whose stored status is newer than the last one handed out, and
   * every completion not handed out yet, from runs that settled while the thread was served (older ones were
   * never news to these subscribers). Rows come back through the head poll, run at once.
   */
  private async resync(): Promise<void> {
    if (this.closed) return;
    await Promise.all(
      [...this.watches].map(async ([threadId, watch]) => {
        for (const signal of await missedSignals(this.store, threadId, watch)) {
          this.deliverSignal(threadId, signal);
        }
      }),
    );
    await this.pollHeads();
  }

  /**
   * Registers first (so nothing committed from now on is missed), then reads the head for `stream.opened`,
   * then replays in the background.
   */
  async subscribe(
    threadId: string,
    after: number,
    listener: (event: StreamEvent) => void,
    flow?: SubscriptionFlow,
  ): Promise<HubSubscription> {
    if (this.closed) throw new Error('the lane is stopped');
    const sub = new Subscription(this, threadId, after, listener, flow);
    let subs = this.threads.get(threadId);
    if (!subs) {
      subs = new Set();
      this.threads.set(threadId, subs);
      this.watches.set(threadId, { since: Date.now(), statusVersions: new Map(), completions: new Map() });
    }
    subs.add(sub);
    try {
      // Answered once the store hears other processes too (bounded: on PostgreSQL the LISTEN connection may
      // still be connecting), so a signal another process sends after this resolves reaches the subscriber.
      const [head] = await Promise.all([this.store.headDeliverySeq(threadId), this.listening()]);
      sub.open(head);
    } catch (err) {
      sub.close();
      throw err;
    }
    if (after > 0) {
      this.replayCompletions(sub).catch((err) => this.options.onListenerError?.(err));
    }
    return sub;
  }

  /**
   * `run.canonicalized` is a live signal, not a row: a subscriber that was away when a run completed resumes
   * "after N" and gets the rows it missed, but would keep holding the rows it had before as provisional. So a
   * resumed subscription hears again the completion of every canonicalized run of the thread (however many
   * completed while it was away: two reads, not one per run); the signal is idempotent for one that saw it
   * already, and it is buffered behind the catch-up like any signal.
   */
  private async replayCompletions(sub: Subscription): Promise<void> {
    for (const signal of await completionSignals(this.store, sub.threadId)) sub.offerSignal(signal);
  }

  private async listening(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.store.listening(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, LISTENING_WAIT_MS);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  }

  subscriberCount(threadId?: string): number {
    if (threadId !== undefined) return this.threads.get(threadId)?.size ?? 0;
    let n = 0;
    for (const s of this.threads.values()) n += s.size;
    return n;
  }

  close(): void {
    this.closed = true;
    this.unlisten();
    this.unlistenSignals();
    this.unlistenListening();
    if (this.pollTimer) clearInterval(this.pollTimer);
    for (const subs of this.threads.values()) for (const sub of subs) sub.close();
    this.threads.clear();
    this.watches.clear();
  }

  /** @internal */
  read(threadId: string, after: number, limit = this.pageSize): Promise<DeliveryRow[]> {
    return this.store.readEvents(threadId, after, limit);
  }

  /** @internal */
  detach(sub: Subscription): void {
    const subs = this.threads.get(sub.threadId);
    if (!subs) return;
    subs.delete(sub);
    if (subs.size === 0) {
      this.threads.delete(sub.threadId);
      this.watches.delete(sub.threadId);
    }
  }

  /** @internal */
  listenerFailed(err: unknown): void {
    this.options.onListenerError?.(err);
  }

  private wake(threadId: string, head: number): void {
    const subs = this.threads.get(threadId);
    if (!subs) return;
    // Deferred: when the commit is ours, the pushed rows arrive first and no read is needed.
    setImmediate(() => {
      for (const sub of subs) sub.catchUpTo(head);
    });
  }

  private polling = false;
  private async pollHeads(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      for (const [threadId, subs] of [...this.threads]) {
        const head = await this.store.headDeliverySeq(threadId);
        for (const sub of subs) sub.catchUpTo(head);
      }
    } catch {
      // The store being briefly unavailable is not fatal for a poll; the next one retries.
    } finally {
      this.polling = false;
    }
  }
}
