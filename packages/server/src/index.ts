// Route schemas may say `hide` (the OpenAPI document leaves the route out): @fastify/swagger adds it to
// FastifySchema, and packages building on this one (protocols) see that through these types.
/// <reference types="@fastify/swagger" preserve="true" />

export {
  Authenticator,
  type AuthToken,
  assertAllThreads,
  assertBindAllowed,
  assertThreadAccess,
  canAccessThread,
  isLoopbackHost,
  type Principal,
} from './auth.js';
export type { EngineCatalog, ServerContext } from './context.js';
export { type AgentlaneServer, API_PREFIX, createServer, type ServerOptions } from './create-server.js';
export {
  codeForStatus,
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  HttpError,
  notFound,
  quote,
  RETRY_AFTER_SECONDS,
  toHttpError,
} from './errors.js';
export { GUARDS_OWN_TEXT, guardInput } from './input-guard.js';
export type { LanePort } from './lane-port.js';
export { DEFAULT_LIMITS, PerKeyCounter, RateLimiter, resolveLimits, type ServerLimits } from './limits.js';
export {
  createObservability,
  type Observability,
  type ObservabilityOptions,
  type RunLeaseObserver,
  type TracingConfig,
  tracingConfig,
} from './observability/index.js';
export { sseResponse } from './openapi-responses.js';
export { keepServingOnUnhandledRejection } from './process-guard.js';
export { ErrorSchema, MAX_PROMPT_CHARS } from './schemas.js';
export { WEB_CSP_HEADER } from './security-headers.js';
export {
  AFTER_QUERY,
  assertCursorSpelling,
  type CursorSource,
  cursorWithinHead,
  LAST_EVENT_ID,
} from './sse/resume-cursor.js';
export { formatSseComment, formatSseFrame, type SseFrame } from './sse/sse-format.js';
export {
  conflictSignature,
  conflictsOf,
  headsOf,
  resolveState,
  type SyncChange,
  type SyncConflict,
} from './sync/sync-state.js';
export { createThreadSession } from './thread-create.js';
export { realPathOf, workspaceGuard } from './workspace-root.js';
