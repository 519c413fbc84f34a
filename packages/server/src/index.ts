export * from './auth';
export * from './context';
export * from './create-server';
export * from './errors';
export * from './lane-port';
export * from './observability';
export * from './sse/sse-format';
export * from './sync/sync-state';
