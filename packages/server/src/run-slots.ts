import type { Store } from '@agentlane/store';
import { HttpError } from './errors.js';

/**
 * Runs each principal has queued or running, created through this process: one more than `max` is refused
 * with 429, so runs parked on an approval under one token cannot take every run slot of the process. The
 * set is pruned against the store on each creation (settled runs leave it), so nothing has to report back.
 */
export class RunSlots {
  readonly #active = new Map<string, Set<string>>();

  constructor(
    private readonly store: Pick<Store, 'getRun'>,
    private readonly max: number,
  ) {}

  async check(key: string): Promise<void> {
    const runs = this.#active.get(key);
    if (!runs || runs.size < this.max) return;
    for (const runId of [...runs]) {
      const run = await this.store.getRun(runId);
      if (!run || run.status === 'completed' || run.status === 'failed') runs.delete(runId);
    }
    if (runs.size >= this.max) {
      throw new HttpError(
        'rate_limited',
        `this token already has ${this.max} runs queued or running; wait for one to settle`,
        undefined,
        undefined,
        5,
      );
    }
  }

  add(key: string, runId: string): void {
    const runs = this.#active.get(key) ?? new Set<string>();
    runs.add(runId);
    this.#active.set(key, runs);
  }
}
