import type { JsonValue } from '@agentlane/contract';

/** The frames a turn emitted; `until` waits (without a timer) for one the test needs to have been recorded. */
export class Frames {
  readonly list: JsonValue[] = [];
  private waiters: { test: (f: JsonValue[]) => boolean; resolve: () => void }[] = [];
  /** An arrow, so it can be handed over as an emit callback. */
  readonly push = (frame: JsonValue): void => {
    this.list.push(frame);
    const ready = this.waiters.filter((w) => w.test(this.list));
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  };
  until(test: (f: JsonValue[]) => boolean): Promise<void> {
    if (test(this.list)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }
}
