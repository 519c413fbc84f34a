export * from './engine-audit.js';
export { auditKey, deterministicUlid } from './record-id.js';
