export * from './engine-audit';
export { auditKey, deterministicUlid } from './record-id';
