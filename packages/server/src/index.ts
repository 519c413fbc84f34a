// Route schemas may say `hide` (the OpenAPI document leaves the route out): @fastify/swagger adds it to
// FastifySchema, and packages building on this one (protocols) see that through these types.
/// <reference types="@fastify/swagger" preserve="true" />

export * from './auth.js';
export * from './context.js';
export * from './create-server.js';
export * from './errors.js';
export * from './lane-port.js';
export * from './limits.js';
export * from './observability/index.js';
export * from './process-guard.js';
export * from './sse/sse-format.js';
export * from './sync/sync-state.js';
export * from './thread-create.js';
export * from './workspace-root.js';
