export * from './diagnostics.js';
export * from './guard.js';
export * from './harness.js';
export * from './narrow.js';
export * from './step.js';
export * from './turn.js';
export * from './with-audit.js';
