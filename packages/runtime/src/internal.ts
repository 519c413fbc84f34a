// Internals of the runtime for tests and benchmarks; not a stable surface.
export { DeltaCoalescer, MAX_COALESCED_CHARS } from './delta-coalescer.js';
export { retryDelayMs } from './model-fetch.js';
