import { describe, expect, it } from 'vitest';
import { nextSlice, SLICE_MS, sliceSpent } from '../src/loop-slice';

/** Busy for about `ms` of wall time (a step of CPU-bound work, like parsing a slice of a model stream). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe('loop slices', () => {
  it('gives one budget to every loop in a turn, so a turn goes back to the poll phase after about SLICE_MS', async () => {
    // A timer that fires once per turn of the event loop (its timers phase) numbers the turns.
    let turn = 0;
    let ticking = true;
    const tickTurn = () => {
      turn++;
      if (ticking) setTimeout(tickTurn, 0);
    };
    setTimeout(tickTurn, 0);
    const stepsPerTurn = new Map<number, number>();
    const loop = async (steps: number) => {
      for (let i = 0; i < steps; i++) {
        if (sliceSpent()) await nextSlice();
        busy(1);
        stepsPerTurn.set(turn, (stepsPerTurn.get(turn) ?? 0) + 1);
      }
    };
    await Promise.all([loop(60), loop(60), loop(60)]);
    ticking = false;
    // Each loop that resumes in a turn takes one step before it looks at the budget again, so a turn holds at
    // most the budget's steps plus one per loop; with a clock per loop it held a full budget per loop.
    const most = Math.max(...stepsPerTurn.values());
    expect(most).toBeLessThanOrEqual(SLICE_MS + 1 + 3);
    // And the work did spread over many turns: the timers phase (other callbacks) kept its turns.
    expect(stepsPerTurn.size).toBeGreaterThanOrEqual(Math.floor(180 / (SLICE_MS + 4)));
  });
});
