import type { JsonObject, StreamEvent } from '@agentlane/contract';
import type { SignalStore } from '@agentlane/store';

type Listener = (event: StreamEvent) => void;

/**
 * Wire-only events the server itself produces (sync.conflict) for the SSE connections of this process, and,
 * through the store's signals, for those of the other server processes sharing the database.
 * Canonical rows and run signals come from the lane's own subscriptions, never from here.
 */
export class ThreadHub {
  readonly #threads = new Map<string, Set<Listener>>();
  readonly #store: SignalStore | undefined;
  readonly #stopHearing: () => void;

  constructor(store?: SignalStore) {
    this.#store = store;
    this.#stopHearing =
      store?.onSignal((threadId, signal) => {
        if (signal.type === 'sync.conflict' && typeof signal.sessionId === 'string') {
          this.#deliver(threadId, signal as unknown as StreamEvent);
        }
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

  close(): void {
    this.#stopHearing();
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
