// Internals of the built-in adapter for tests and benchmarks; not a stable surface.
export { runtimeFrameProblem } from './translate/frame-check.js';
export { usageFields } from './translate/parts.js';
