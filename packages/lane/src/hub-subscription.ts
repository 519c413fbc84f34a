import type { CanonicalStreamEvent, DeliveryRow, StreamEvent } from '@agentlane/contract';
import type { HubSignal } from './hub-signals.js';
import type { SubscriptionFlow } from './types.js';

// One subscription of the publish hub: a cursor that is only ever handed committed rows, in order.

type Item = { row: DeliveryRow } | { signal: HubSignal };

/** How long a hole in deliverySeq is waited for before it is taken as real (the store skipped a number). */
const GAP_TOLERANCE_MS = 1000;
const GAP_RETRY_MS = 5;

export interface HubSubscription {
  readonly threadId: string;
  readonly headDeliverySeq: number;
  readonly cursor: number;
  close(): void;
}

/** What a subscription needs of its hub. */
export interface SubscriptionHost {
  readonly pageSize: number;
  read(threadId: string, after: number, limit?: number): Promise<DeliveryRow[]>;
  detach(sub: Subscription): void;
  listenerFailed(err: unknown): void;
}

/** A committed row as the wire shows it. */
export function rowToStreamEvent(row: DeliveryRow): CanonicalStreamEvent {
  const { deliverySeq, revision, provisional, namespace, event } = row;
  // Two literals, not a conditional spread (no throwaway object per row); same key order either way.
  return namespace && namespace.length > 0
    ? { type: event.kind, deliverySeq, revision, provisional, namespace, event }
    : { type: event.kind, deliverySeq, revision, provisional, event };
}

export class Subscription implements HubSubscription {
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
    private readonly hub: SubscriptionHost,
    readonly threadId: string,
    after: number,
    private readonly listener: (event: StreamEvent) => void,
    /** Paces the replay to a consumer that writes to a socket (see SubscriptionFlow). */
    private readonly flow?: SubscriptionFlow,
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
          const limit = this.flow?.pageSize() ?? this.hub.pageSize;
          const rows = await this.hub.read(this.threadId, this.cursor, limit);
          if (this.closed) return;
          for (const row of rows) {
            if (row.deliverySeq <= this.cursor) continue;
            if (row.deliverySeq !== this.cursor + 1 && !allowGap) {
              stalled = true;
              break;
            }
            this.deliverRow(row);
            // A replay writes no faster than its consumer reads: a page of large rows handed over at once sat
            // whole in the socket's buffer (16 MB and more per stream) and cut a fast reader as a slow one.
            if (this.flow && !this.flow.ready()) {
              await this.flow.writable();
              if (this.closed) return;
            }
          }
          if (stalled || rows.length < limit) break;
          // More pages follow: let the event loop run between them. A store read that answers synchronously
          // (SQLite) resolves as a microtask, so a replay of a long thread otherwise ran as one task, blocking
          // every other request for seconds, and went on after its client had gone.
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (this.closed) return;
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
