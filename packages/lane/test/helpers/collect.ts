import type { CanonicalStreamEvent, StreamEvent } from '@agentlane/contract';

/** Collects what a subscriber saw and waits for conditions on it. */
export class Collector {
  readonly events: StreamEvent[] = [];
  readonly listener = (e: StreamEvent) => {
    this.events.push(e);
  };

  rows(): CanonicalStreamEvent[] {
    return this.events.filter((e): e is CanonicalStreamEvent => 'deliverySeq' in e && 'event' in e);
  }

  seqs(): number[] {
    return this.rows().map((r) => r.deliverySeq);
  }

  async until(pred: (c: Collector) => boolean, timeoutMs = 10_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!pred(this)) {
      if (Date.now() > end)
        throw new Error(
          `timed out; saw ${this.events.length} events: ${JSON.stringify(this.events.map((e) => e.type))}`,
        );
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

export async function waitFor<T>(
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
