/**
 * @agentlane/lane: the canonical lane.
 *
 * `createLane({ store, drivers, ownerId })` returns the facade the server calls:
 * - `createRun` / `cancelRun`: the durable commands run.create and run.cancel (idempotency keys honoured).
 * - `answerApproval` / `answerQuestion`: written to the store first, then delivered to the waiting turn.
 * - `subscribe(threadId, after, listener)`: `stream.opened`, then every committed row after `after` (replay,
 *   then live; no gap, no duplicate; every run of the thread, including later ones), plus `run.status` and
 *   `run.canonicalized` signals.
 * - `start()`: crash recovery (runs left running are settled failed with an "engine process lost" error and
 *   canonicalized), then the run executor and the canonicalization outbox worker. `stop()`: the reverse.
 *
 * Lower-level pieces (the publish hub, the run pipeline, the canonicalizer) are exported for tests and
 * benchmarks.
 */
export * from './types';
