/**
 * The recorded-turn corpus machinery (not part of the engine's public API): deterministic clock and ids,
 * a recording proxy and a replay server for provider HTTP, and one turn run the way the lane runs it.
 */
export * from './corpus';
export * from './deterministic';
export { runCorpusTurn, type TurnRecord } from './run-turn';
export * from './wire';
