import { randomUUID } from 'node:crypto';
import type { JsonObject } from '@agentlane/contract';
import type { SignalStore } from '../../roles/signals.js';
import type { SqlContext } from './context.js';

/**
 * Commits and signals heard between the stores of one database. `origin` names this store in what it sends,
 * so it does not hear itself; its own commits are published in-process by the write queue (`publish`).
 */
export class SqlSignals implements SignalStore {
  readonly origin = randomUUID();
  private readonly listeners = new Set<(threadId: string, head: number) => void>();
  private stopListening: (() => void) | null = null;

  constructor(private readonly ctx: SqlContext) {}

  publish(heads: ReadonlyMap<string, number>): void {
    for (const [threadId, head] of heads) {
      for (const listener of this.listeners) {
        try {
          listener(threadId, head);
        } catch {
          // A listener's bug must not break the writer that committed.
        }
      }
    }
  }

  /** Stops hearing other stores' commits (at close). */
  stop(): void {
    this.stopListening?.();
  }

  onCommitted(listener: (threadId: string, headDeliverySeq: number) => void): () => void {
    this.listeners.add(listener);
    if (!this.stopListening && !this.ctx.closed) {
      // Commits of this store are published in-process right after commit; the backend brings the others'.
      this.stopListening = this.ctx.db.listenCommitted((threadId, head, origin) => {
        if (origin !== this.origin) this.publish(new Map([[threadId, head]]));
      });
    }
    return () => {
      this.listeners.delete(listener);
    };
  }

  async broadcastSignal(threadId: string, signal: JsonObject): Promise<void> {
    if (this.ctx.closed) return;
    await this.ctx.db.notifySignal(threadId, JSON.stringify(signal), this.origin);
  }

  listening(): Promise<void> {
    return this.ctx.closed ? Promise.resolve() : this.ctx.db.listening();
  }

  onListening(listener: () => void): () => void {
    return this.ctx.db.onListening(() => {
      try {
        listener();
      } catch {
        // A listener's bug must not stop the others.
      }
    });
  }

  onSignal(listener: (threadId: string, signal: JsonObject) => void): () => void {
    return this.ctx.db.listenSignals((threadId, payload, origin) => {
      if (origin === this.origin) return;
      let signal: unknown;
      try {
        signal = JSON.parse(payload);
      } catch {
        return; // not ours to understand: a reader tolerates what it does not know
      }
      if (signal === null || typeof signal !== 'object' || Array.isArray(signal)) return;
      try {
        listener(threadId, signal as JsonObject);
      } catch {
        // A listener's bug must not stop the others.
      }
    });
  }
}
