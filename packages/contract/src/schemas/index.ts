export * from './audit.js';
export * from './capabilities.js';
export * from './checkpoint.js';
export {
  closedObject,
  JsonObjectMapSchema,
  JsonObjectSchema,
  JsonValueSchema,
  ULID_PATTERN,
} from './common.js';
export * from './delivery.js';
export * from './envelope.js';
export * from './events.js';
export * from './payloads-interaction.js';
export * from './payloads-session.js';
export * from './payloads-tools.js';
export * from './registry.js';
export * from './rest-audit.js';
export * from './rest-checkpoints.js';
export * from './rest-error.js';
export * from './rest-run.js';
export * from './rest-session.js';
export * from './rest-sync.js';
export * from './session-state.js';
export * from './version-vector.js';
