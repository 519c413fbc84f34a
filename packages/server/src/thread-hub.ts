import type { StreamEvent } from '@agentlane/contract';

type Listener = (event: StreamEvent) => void;

/**
 * Wire-only events the server itself produces (sync.conflict) for the SSE connections of this process.
 * Canonical rows and run signals come from the lane's own subscriptions, never from here.
 */
export class ThreadHub {
  readonly #threads = new Map<string, Set<Listener>>();

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
    for (const listener of this.#threads.get(threadId) ?? []) {
      try {
        listener(event);
      } catch {
        // One broken connection must not starve the others; its close handling cleans it up.
      }
    }
  }
}
