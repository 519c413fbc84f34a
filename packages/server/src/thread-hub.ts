import type { JsonObject, StreamEvent } from '@agentlane/contract';
import type { SignalStore } from '@agentlane/store';

type Listener = (event: StreamEvent) => void;

/** The store signal announcing a deleted session: never a StreamEvent, no subscriber is handed it. */
const THREAD_DELETED = 'agentlane.thread_deleted';

/**
 * Wire-only events the server itself produces (sync.conflict) for the SSE connections of this process, and,
 * through the store's signals, for those of the other server processes sharing the database.
 * Canonical rows and run signals come from the lane's own subscriptions, never from here. A session deleted by
 * any process is announced the same way, so every process ends its streams of the thread.
 */
export class ThreadHub {
  readonly #threads = new Map<string, Set<Listener>>();
  readonly #store: SignalStore | undefined;
  readonly #stopHearing: () => void;
  readonly #onDeleted = new Set<(threadId: string) => void>();

  constructor(store?: SignalStore) {
    this.#store = store;
    this.#stopHearing =
      store?.onSignal((threadId, signal) => {
        if (signal.type === 'sync.conflict' && typeof signal.sessionId === 'string') {
          this.#deliver(threadId, signal as unknown as StreamEvent);
        } else if (signal.type === THREAD_DELETED) this.#deleted(threadId);
      }) ?? (() => {});
  }

  subscribe(threadId: string, listener: Listener): () => void {
    let listeners = this.#threads.get(threadId);
    if (!listeners) {
      listeners = new Set();
      this.#threads.set(threadId, listeners);
    }
    listeners.add(listener);
    const current = listeners;
    return () => {
      current.delete(listener);
      if (current.size === 0 && this.#threads.get(threadId) === current) this.#threads.delete(threadId);
    };
  }

  publish(threadId: string, event: StreamEvent): void {
    this.#deliver(threadId, event);
    // Best effort, like the event itself: a conflict is also in the sync response of the writer that hit it.
    this.#store?.broadcastSignal(threadId, event as unknown as JsonObject).catch(() => {});
  }

  /** Calls `listener` when a thread is deleted, by this process or (through the store's signals) another. */
  onThreadDeleted(listener: (threadId: string) => void): () => void {
    this.#onDeleted.add(listener);
    return () => this.#onDeleted.delete(listener);
  }

  /** The thread was deleted here: this process's listeners now, the other processes' through the store. */
  threadDeleted(threadId: string): void {
    this.#deleted(threadId);
    this.#store?.broadcastSignal(threadId, { type: THREAD_DELETED }).catch(() => {});
  }

  close(): void {
    this.#stopHearing();
  }

  #deleted(threadId: string): void {
    for (const listener of this.#onDeleted) listener(threadId);
  }

  #deliver(threadId: string, event: StreamEvent): void {
    for (const listener of this.#threads.get(threadId) ?? []) {
      try {
        listener(event);
      } catch {
        // One broken connection must not starve the others; its close handling cleans it up.
      }
    }
  }
}
