import type {
  CanonicalStreamEvent,
  DeliveryRow,
  JsonObject,
  RunCanonicalizedEvent,
  RunStatusEvent,
  StreamEvent,
} from '@agentlane/contract';
import type { EventStore, OutboxStore, RunStore, SignalStore } from '@agentlane/store';

export type HubSignal = RunStatusEvent | RunCanonicalizedEvent;

type Item = { row: DeliveryRow } | { signal: HubSignal };

const RUN_STATUSES = new Set(['queued', 'running', 'completed', 'failed']);

/** A signal heard from another process, checked before it reaches a subscriber. */
function isHubSignal(value: JsonObject): value is JsonObject & HubSignal {
  if (typeof value.threadId !== 'string' || typeof value.runId !== 'string') return false;
  if (typeof value.status !== 'string' || !RUN_STATUSES.has(value.status)) return false;
  if (value.type === 'run.status') return true;
  return (
    value.type === 'run.canonicalized' &&
    typeof value.lastDeliverySeq === 'number' &&
    typeof value.completedAt === 'string'
  );
}

/** How long a subscribe waits for the store to hear other processes before it answers anyway. */
const LISTENING_WAIT_MS = 5000;
/** Clock difference between processes allowed when deciding whether a settled run is news to a thread. */
const CLOCK_SKEW_MS = 5000;

/** What the hub knows of a thread it serves: since when, and the latest signal of each run handed out. */
interface ThreadWatch {
  /** Date.now() when the thread got its first subscriber here. */
  readonly since: number;
  /** runId → the highest statusVersion handed to the thread's subscribers. */
  readonly statusVersions: Map<string, number>;
  /** runId → the lastDeliverySeq of the latest run.canonicalized handed out. */
  readonly completions: Map<string, number>;
}

/** How long a hole in deliverySeq is waited for before it is taken as real (the store skipped a number). */
const GAP_TOLERANCE_MS = 1000;
const GAP_RETRY_MS = 5;

export interface HubSubscription {
  readonly threadId: string;
  readonly headDeliverySeq: number;
  readonly cursor: number;
  close(): void;
}

export interface HubOptions {
  /** Rows read per store query during replay / catch-up. */
  pageSize?: number;
  /**
   * Poll the head of subscribed threads this often, for commits of other processes that the store's
   * onCommitted does not report (SQLite is in-process only). 0 disables. Default 250 ms.
   */
  headPollMs?: number;
  onListenerError?: (err: unknown) => void;
}

/** A committed row as the wire shows it. */
export function rowToStreamEvent(row: DeliveryRow): CanonicalStreamEvent {
  const { deliverySeq, revision, provisional, namespace, event } = row;
  // Two literals, not a conditional spread (no throwaway object per row); same key order either way.
  return namespace && namespace.length > 0
    ? { type: event.kind, deliverySeq, revision, provisional, namespace, event }
    : { type: event.kind, deliverySeq, revision, provisional, event };
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
export class PublishHub {
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
    this.pageSize = options.pageSize ?? 5000;
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
        const [runs, completions] = await Promise.all([
          this.store.listRuns(threadId),
          this.store.listCompletions(threadId),
        ]);
        const recent = (iso: string | null): boolean =>
          iso === null || Date.parse(iso) >= watch.since - CLOCK_SKEW_MS;
        const statusOf = new Map<string, HubSignal['status']>();
        for (const run of runs) {
          statusOf.set(run.runId, run.status);
          if (!watch.statusVersions.has(run.runId) && !recent(run.endedAt)) continue;
          this.deliverSignal(threadId, {
            type: 'run.status',
            threadId,
            runId: run.runId,
            status: run.status,
            statusVersion: run.statusVersion,
          });
        }
        for (const record of completions) {
          if (!watch.completions.has(record.runId) && !recent(record.completedAt)) continue;
          this.deliverSignal(threadId, {
            type: 'run.canonicalized',
            threadId,
            runId: record.runId,
            status: statusOf.get(record.runId) ?? 'completed',
            lastDeliverySeq: record.lastDeliverySeq,
            completedAt: record.completedAt,
          });
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
  ): Promise<HubSubscription> {
    if (this.closed) throw new Error('the lane is stopped');
    const sub = new Subscription(this, threadId, after, listener);
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
    const [completions, runs] = await Promise.all([
      this.store.listCompletions(sub.threadId),
      this.store.listRuns(sub.threadId),
    ]);
    const statusOf = new Map(runs.map((run) => [run.runId, run.status]));
    for (const record of completions) {
      sub.offerSignal({
        type: 'run.canonicalized',
        threadId: sub.threadId,
        runId: record.runId,
        status: statusOf.get(record.runId) ?? 'completed',
        lastDeliverySeq: record.lastDeliverySeq,
        completedAt: record.completedAt,
      });
    }
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
  read(threadId: string, after: number): Promise<DeliveryRow[]> {
    return this.store.readEvents(threadId, after, this.pageSize);
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

class Subscription implements HubSubscription {
  cursor: number;
  headDeliverySeq = 0;
  private opened = false;
  private reading = false;
  private closed = false;
  /** Rows and signals that arrived while a read was in flight, in arrival order. */
  private buffer: Item[] = [];
  /** The highest head reported while reading: read again if the read ended below it. */
  private wantedHead = 0;

  constructor(
    private readonly hub: PublishHub,
    readonly threadId: string,
    after: number,
    private readonly listener: (event: StreamEvent) => void,
  ) {
    this.cursor = after;
  }

  open(head: number): void {
    if (this.closed) return;
    this.headDeliverySeq = head;
    this.opened = true;
    this.emit({ type: 'stream.opened', threadId: this.threadId, after: this.cursor, headDeliverySeq: head });
    this.wantedHead = head;
    void this.readLoop();
  }

  offerRows(rows: readonly DeliveryRow[], events?: readonly CanonicalStreamEvent[]): void {
    if (this.closed) return;
    if (!this.opened || this.reading) {
      for (const row of rows) this.buffer.push({ row });
      return;
    }
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as DeliveryRow;
      if (row.deliverySeq <= this.cursor) continue;
      if (row.deliverySeq !== this.cursor + 1) {
        // A gap: something committed before these rows has not reached us yet. Read it from the store.
        for (const rest of rows.slice(i)) this.buffer.push({ row: rest });
        this.wantedHead = Math.max(this.wantedHead, row.deliverySeq - 1);
        void this.readLoop();
        return;
      }
      this.deliverRow(row, events?.[i]);
    }
  }

  offerSignal(signal: HubSignal): void {
    if (this.closed) return;
    if (!this.opened || this.reading) {
      this.buffer.push({ signal });
      return;
    }
    if (signal.type === 'run.canonicalized' && signal.lastDeliverySeq > this.cursor) {
      // Heard from another process before its rows reached us: read them first, then say they are final.
      this.buffer.push({ signal });
      this.catchUpTo(signal.lastDeliverySeq);
      return;
    }
    this.emit(signal);
  }

  catchUpTo(head: number): void {
    if (this.closed || !this.opened || head <= this.cursor) return;
    this.wantedHead = Math.max(this.wantedHead, head);
    if (!this.reading) void this.readLoop();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer = [];
    this.hub.detach(this);
  }

  private async readLoop(): Promise<void> {
    if (this.reading || this.closed) return;
    this.reading = true;
    try {
      // When a row does not follow the cursor, the row in between may still be committing (PostgreSQL with
      // several writers): wait for it rather than skip it. Only a gap that persists is taken as real.
      let gapSince: number | null = null;
      for (;;) {
        const before = this.cursor;
        const allowGap = gapSince !== null && Date.now() - gapSince >= GAP_TOLERANCE_MS;
        let stalled = false;
        // Read until a short page (the store had nothing more), then drain what was buffered meanwhile.
        for (;;) {
          const rows = await this.hub.read(this.threadId, this.cursor);
          if (this.closed) return;
          for (const row of rows) {
            if (row.deliverySeq <= this.cursor) continue;
            if (row.deliverySeq !== this.cursor + 1 && !allowGap) {
              stalled = true;
              break;
            }
            this.deliverRow(row);
          }
          if (stalled || rows.length < this.hub.pageSize) break;
        }
        const gap = stalled || this.drainBuffer(allowGap);
        if (!gap) {
          if (this.cursor >= this.wantedHead || this.cursor === before) break;
          continue;
        }
        gapSince = this.cursor > before || gapSince === null ? Date.now() : gapSince;
        await new Promise((r) => setTimeout(r, GAP_RETRY_MS));
        if (this.closed) return;
      }
    } catch (err) {
      this.hub.listenerFailed(err);
      // The next push or head poll restarts the loop from the cursor.
    } finally {
      this.reading = false;
    }
  }

  /** Delivers buffered items in order; returns true when it stopped at a row that does not follow the cursor. */
  private drainBuffer(allowGap: boolean): boolean {
    while (this.buffer.length > 0) {
      const item = this.buffer[0] as Item;
      if ('signal' in item) {
        this.buffer.shift();
        this.emit(item.signal);
        continue;
      }
      if (item.row.deliverySeq <= this.cursor) {
        this.buffer.shift();
        continue;
      }
      if (item.row.deliverySeq !== this.cursor + 1 && !allowGap) {
        this.wantedHead = Math.max(this.wantedHead, item.row.deliverySeq - 1);
        return true;
      }
      this.buffer.shift();
      this.deliverRow(item.row);
    }
    return false;
  }

  private deliverRow(row: DeliveryRow, event?: CanonicalStreamEvent): void {
    this.cursor = row.deliverySeq;
    this.emit(event ?? rowToStreamEvent(row));
  }

  private emit(event: StreamEvent): void {
    try {
      this.listener(event);
    } catch (err) {
      this.hub.listenerFailed(err);
    }
  }
}
