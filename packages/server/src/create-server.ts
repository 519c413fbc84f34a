import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { resolve } from 'node:path';
import type { CheckpointSaver } from '@agentlane/checkpoints';
import type { Store } from '@agentlane/store';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import { Authenticator, type AuthToken } from './auth.js';
import type { EngineCatalog, ServerContext } from './context.js';
import { HttpError } from './errors.js';
import { handleClientError, handleFrameworkError, handleRouteError } from './framework-errors.js';
import { hostChecker } from './host-check.js';
import { DEFAULT_MAX_DEPTH, GUARDS_OWN_TEXT, guardInput } from './input-guard.js';
import { useJsonBodyParser } from './json-body.js';
import type { LanePort } from './lane-port.js';
import { RateLimiter, resolveLimits, type ServerLimits } from './limits.js';
import type { Observability } from './observability/index.js';
import { requestId, requestLog, requestSerializers } from './observability/request-log.js';
import { documentCommonErrors } from './openapi-responses.js';
import { assertRequestFraming } from './request-framing.js';
import { routeNotFound } from './route-not-found.js';
import { artifactRoutes } from './routes/artifacts.js';
import { type AuditReader, auditRoutes } from './routes/audit.js';
import { checkpointRoutes } from './routes/checkpoints.js';
import { externalEventRoutes } from './routes/external-events.js';
import { forkRoutes } from './routes/fork.js';
import { frameRoutes } from './routes/frames.js';
import { healthRoutes } from './routes/health.js';
import { runRoutes } from './routes/runs.js';
import { sessionRoutes } from './routes/sessions.js';
import { syncRoutes } from './routes/sync.js';
import { threadRoutes } from './routes/threads.js';
import { RunSlots } from './run-slots.js';
import { useSecurityHeaders } from './security-headers.js';
import { FrameCache } from './sse/sse-connection.js';
import { StreamSlots } from './stream-slots.js';
import { ThreadHub } from './thread-hub.js';
import { lazySerializers, validatorCompiler } from './validator.js';
import { workDirGuardedLane } from './workdir-guarded-lane.js';
import { workspaceGuard } from './workspace-root.js';
import { trackWrites, WriteHealth } from './write-health.js';

export const API_PREFIX = '/api/harness';

export interface ServerOptions {
  store: Store;
  lane: LanePort;
  engines: EngineCatalog;
  /** Checkpoint saver behind GET /sessions/:id/checkpoints[/:checkpointId]; without one those answer 404. */
  checkpoints?: CheckpointSaver;
  /** The audit ledger behind GET /sessions/:id/audit; without one it answers 404. */
  audit?: AuditReader;
  /** Bearer tokens; none means local-only mode (loopback bind, no auth). */
  tokens?: AuthToken[];
  /** SSE heartbeat comment interval. Default 10 s. */
  heartbeatMs?: number;
  /** Unsent bytes one SSE connection may hold (see SseConnectionOptions). Default 1 MiB. */
  maxBufferBytes?: number;
  /** How long a connection may stay above maxBufferBytes without draining. Default 5 s. */
  slowConsumerMs?: number;
  /** Unsent bytes past which a connection is dropped at once. Default 16 MiB. */
  maxBurstBytes?: number;
  /** Reconnect hint sent with stream.closing. Default 1000 ms. */
  retryMs?: number;
  /** Largest accepted request body. Default 1 MiB. */
  bodyLimitBytes?: number;
  /** Work folder of a session created without one. Default process.cwd(). */
  defaultWorkDir?: string;
  /** No session's workDir may lie outside this folder (real paths). Default: defaultWorkDir. */
  workspaceRoot?: string;
  /** Timeouts, connection cap, per-token and per-address limits (see ServerLimits for the defaults). */
  limits?: Partial<ServerLimits>;
  /** The clock of the wrong-token limit (monotonic ms; tests move it). Default performance.now. */
  authClock?: () => number;
  /** Host names accepted besides localhost, 127.0.0.1 and [::1] when no tokens are configured. */
  allowedHosts?: string[];
  /** A built web UI (e.g. packages/web/dist) served at `/` when the folder exists. */
  webRoot?: string;
  version?: string;
  /**
   * More routes under /api/harness (the protocol translations of @agentlane/protocols), registered after
   * the server's own with the same auth hook and error handler.
   */
  routes?: ((ctx: ServerContext) => FastifyPluginAsync)[];
  /** Fastify logger (pino) options; false by default. */
  logger?: boolean | { level: string };
  /** A pino logger to log requests with (wins over `logger`); its lines carry reqId, threadId, runId. */
  loggerInstance?: FastifyBaseLogger;
  /** How long GET /health waits for the database before answering 503 `timeout`. Default 1500 ms. */
  healthTimeoutMs?: number;
  /** Engines found but not offered, with why (GET /health lists them under checks). */
  unavailableEngines?: readonly { name: string; reason: string }[];
  /** Metrics and traces (see ./observability): mounts GET /metrics. */
  observability?: Observability;
}

export interface AgentlaneServer {
  app: FastifyInstance;
  context: ServerContext;
  /** SIGTERM path: refuse new requests, end streams with a retry hint, let in-flight requests finish. */
  shutdown(): Promise<void>;
}

/** The state every route shares, from the options. */
function serverContext(options: ServerOptions, limits: ServerLimits): ServerContext {
  const defaultWorkDir = options.defaultWorkDir ?? process.cwd();
  const checkWorkDir = workspaceGuard(options.workspaceRoot ?? defaultWorkDir);
  // The lane's own writes are heard where its store is observed (`agentlane serve`); the routes' here.
  const writes = options.observability?.writes ?? new WriteHealth();
  const store = trackWrites(options.store, writes);
  return {
    store,
    writes,
    healthTimeoutMs: options.healthTimeoutMs ?? 1500,
    lane: workDirGuardedLane(options.lane, store, checkWorkDir),
    checkpoints: options.checkpoints,
    hub: new ThreadHub(store),
    engines: options.engines,
    auth: new Authenticator(options.tokens ?? [], {
      maxWrong: limits.wrongTokensPerAddress,
      windowMs: limits.wrongTokenWindowMs,
      ...(options.authClock ? { now: options.authClock } : {}),
    }),
    sse: {
      heartbeatMs: options.heartbeatMs ?? 10_000,
      maxBufferBytes: options.maxBufferBytes ?? 1024 * 1024,
      slowConsumerMs: options.slowConsumerMs ?? 5000,
      maxBurstBytes: options.maxBurstBytes ?? 16 * 1024 * 1024,
      retryMs: options.retryMs ?? 1000,
    },
    connections: new Set(),
    frames: new FrameCache(),
    defaultWorkDir,
    checkWorkDir,
    streamSlots: new StreamSlots(limits, (options.tokens ?? []).length === 0),
    runSlots: new RunSlots(store, limits.maxRunsPerToken),
    version: options.version ?? '0.1.0',
    draining: false,
    ...(options.unavailableEngines ? { unavailableEngines: options.unavailableEngines } : {}),
  };
}

/** The Fastify instance with the limits applied (timeouts, body size, connection cap). */
function fastifyApp(options: ServerOptions, limits: ServerLimits) {
  const app = Fastify({
    // Every logger gets the redacting request serializer (a child's serializers win over Fastify's own).
    ...(options.loggerInstance
      ? { loggerInstance: options.loggerInstance.child({}, { serializers: requestSerializers }) }
      : {
          logger:
            options.logger === undefined || options.logger === false
              ? false
              : { ...(options.logger === true ? {} : options.logger), serializers: requestSerializers },
        }),
    genReqId: requestId,
    schemaController: { compilersFactory: lazySerializers },
    bodyLimit: options.bodyLimitBytes ?? 1024 * 1024,
    // Secrets never reach logs: the Authorization header is not part of the default request serializer.
    return503OnClosing: true,
    // Every id the schemas allow (up to 200 characters) reaches validation; longer is 414 in the error shape.
    routerOptions: { maxParamLength: 512 },
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    // Node checks request and header deadlines on this interval: a fraction of the shortest one.
    http: {
      // Node would answer a request without Host with an empty 400: assertRequestFraming answers it in JSON.
      requireHostHeader: false,
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, limits.headersTimeoutMs / 4)),
    },
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.server.maxConnections = limits.maxConnections;
  // A connection that never sends a byte escapes Node's header deadline (no request has started) and, once
  // that deadline passed, its idle timeout too: it is ended here when nothing arrived within headersTimeout.
  // CONNECT bypasses the request handler (Node emits 'connect' and, with no listener, drops the socket): it
  // gets the JSON 404 every method a route does not answer gets.
  app.server.on('connect', (_request: unknown, socket: Socket) => {
    const body = JSON.stringify(new HttpError('not_found', 'CONNECT is not served here', 'method').toBody());
    socket.end(
      `HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  app.server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, limits.headersTimeoutMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
  return app;
}

/** The built web UI at / (a single-page app), and the JSON 404 for everything else. */
async function serveWeb(app: FastifyInstance, options: ServerOptions): Promise<void> {
  const webRoot = options.webRoot ? resolve(options.webRoot) : undefined;
  if (webRoot && existsSync(webRoot)) {
    await app.register(fastifyStatic, { root: webRoot, prefix: '/', wildcard: false });
    // A single-page app: unknown non-API GETs get index.html.
    app.setNotFoundHandler((request, reply) => {
      if (request.method === 'GET' && !request.url.startsWith(API_PREFIX))
        return reply.sendFile('index.html');
      return reply.code(404).send(routeNotFound(app, request).toBody());
    });
  } else {
    app.setNotFoundHandler((request, reply) => reply.code(404).send(routeNotFound(app, request).toBody()));
  }
}

export async function createServer(options: ServerOptions): Promise<AgentlaneServer> {
  const limits = resolveLimits(options.limits);
  const context = serverContext(options, limits);
  // A deleted session's streams end and its engine process is closed on every process (ThreadHub hears
  // deletions made by the others too).
  context.hub.onThreadDeleted((threadId) => {
    for (const conn of [...context.connections]) if (conn.threadId === threadId) conn.end();
    context.lane.closeThreadEngine?.(threadId).catch(() => false);
  });

  const app = fastifyApp(options, limits);

  app.setValidatorCompiler(validatorCompiler);
  app.decorateRequest('principal', null as never);
  app.setErrorHandler(handleRouteError);
  // A write a route made through the lane (whose store may not be observed here) and the disk refused.
  app.addHook('onError', async (_request, _reply, error) => context.writes.failed(error));
  // Rows any store of this database committed (this process's lane, another process) found room.
  const stopHearingCommits = options.store.onCommitted(() => context.writes.succeeded());
  useJsonBodyParser(app);
  await useSecurityHeaders(app);

  app.addHook('onRequest', async (request) => assertRequestFraming(request));
  if (!context.auth.enabled) {
    const checkHost = hostChecker(options.allowedHosts ?? []);
    app.addHook('onRequest', async (request) => checkHost(request.headers.host));
  }
  const rate = new RateLimiter(limits.requestsPerSecond, limits.requestBurst);

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'agentlane harness API', version: context.version },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
    },
  });

  requestLog(app);
  options.observability?.register(app, context);

  await app.register(
    async (api) => {
      api.addHook('onRequest', async (request) => {
        if (context.draining) throw new HttpError('unavailable', 'the server is shutting down');
        const path = request.url.slice(API_PREFIX.length).split('?')[0];
        if (path === '/health' || path === '/openapi.json') return;
        request.principal = context.auth.authenticate(request);
        rate.take(request.principal.key);
      });
      // Before validation and before any store: NUL characters and deep nesting (see input-guard).
      api.addHook('preValidation', async (request) => {
        guardInput('params', request.params);
        guardInput('query', request.query);
        const config: unknown = request.routeOptions.config;
        const ownText = (config as Record<string, unknown> | undefined)?.[GUARDS_OWN_TEXT];
        guardInput('body', request.body, DEFAULT_MAX_DEPTH, ownText !== true);
      });
      documentCommonErrors(api);
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      await api.register(healthRoutes(context));
      await api.register(sessionRoutes(context));
      await api.register(syncRoutes(context));
      await api.register(runRoutes(context));
      await api.register(externalEventRoutes(context));
      await api.register(threadRoutes(context));
      await api.register(artifactRoutes(context));
      await api.register(checkpointRoutes(context, options.checkpoints));
      await api.register(forkRoutes(context, options.checkpoints));
      await api.register(auditRoutes(context, options.audit));
      await api.register(frameRoutes(context));
      for (const routes of options.routes ?? []) await api.register(routes(context));
    },
    { prefix: API_PREFIX },
  );

  await serveWeb(app, options);

  app.addHook('onClose', async () => {
    stopHearingCommits();
    context.hub.close();
  });

  const shutdown = async (): Promise<void> => {
    context.draining = true;
    for (const conn of [...context.connections]) conn.close('shutdown');
    // Waits for in-flight requests (their store commits) to finish; hijacked SSE sockets are already ended.
    await app.close();
  };

  return { app, context, shutdown };
}
