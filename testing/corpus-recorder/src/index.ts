/**
 * The recorded-turn corpus machinery (not part of the engine's public API): deterministic clock and ids,
 * a recording proxy and a replay server for provider HTTP, and one turn run the way the lane runs it.
 */
export * from './corpus.js';
export * from './deterministic.js';
export { runCorpusTurn, type TurnRecord } from './run-turn.js';
export * from './wire.js';
