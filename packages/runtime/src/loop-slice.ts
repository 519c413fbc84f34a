/**
 * One budget of synchronous work per event-loop turn, shared by the streaming loops of this process (the model
 * stream's network slices and the consumer of the SDK's parts). Each loop used to keep its own clock: in one
 * turn's check phase every one of them ran its full slice, one after the other, and the turn took their sum
 * (25–30 ms a turn while a long answer streamed, so /health waited that long). With one clock, whichever loop
 * resumes first in a turn spends the budget and the others wait for the next turn: every turn goes back to
 * the poll phase (other requests, commits) after about SLICE_MS.
 */
export const SLICE_MS = 6;

let sliceStart = 0;
let markQueued = false;
const markTurn = () => {
  markQueued = false;
  sliceStart = performance.now();
};

/** True once this turn's budget is spent: the caller should `await nextSlice()` before more work. */
export function sliceSpent(): boolean {
  return performance.now() - sliceStart > SLICE_MS;
}

/**
 * Resolves in the next turn's check phase, after its poll phase. The first loop to wait queues the mark that
 * starts the next turn's budget (immediates run in the order queued, so the mark runs before any waiter).
 */
export function nextSlice(): Promise<void> {
  if (!markQueued) {
    markQueued = true;
    setImmediate(markTurn);
  }
  return new Promise((resolve) => setImmediate(resolve));
}
