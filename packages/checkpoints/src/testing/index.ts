// Helpers for tests (and benchmarks) that need checkpoints in a saver; not part of the runtime API.
export { postTurnCheckpoint, putTurns } from './turns.js';
