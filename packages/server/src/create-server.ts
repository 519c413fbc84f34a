import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CheckpointSaver } from '@agentlane/checkpoints';
import type { Store } from '@agentlane/store';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginAsync,
} from 'fastify';
import { Authenticator, type AuthToken } from './auth';
import type { EngineCatalog, ServerContext } from './context';
import { HttpError, RETRY_AFTER_SECONDS, toHttpError } from './errors';
import type { LanePort } from './lane-port';
import type { Observability } from './observability';
import { requestId, requestLog } from './observability/request-log';
import { artifactRoutes } from './routes/artifacts';
import { type AuditReader, auditRoutes } from './routes/audit';
import { checkpointRoutes } from './routes/checkpoints';
import { forkRoutes } from './routes/fork';
import { healthRoutes } from './routes/health';
import { runRoutes } from './routes/runs';
import { sessionRoutes } from './routes/sessions';
import { syncRoutes } from './routes/sync';
import { threadRoutes } from './routes/threads';
import { FrameCache } from './sse/sse-connection';
import { ThreadHub } from './thread-hub';
import { validationField } from './validation-field';
import { validatorCompiler } from './validator';

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

export async function createServer(options: ServerOptions): Promise<AgentlaneServer> {
  const context: ServerContext = {
    store: options.store,
    lane: options.lane,
    hub: new ThreadHub(options.store),
    engines: options.engines,
    auth: new Authenticator(options.tokens ?? []),
    sse: {
      heartbeatMs: options.heartbeatMs ?? 10_000,
      maxBufferBytes: options.maxBufferBytes ?? 1024 * 1024,
      slowConsumerMs: options.slowConsumerMs ?? 5000,
      maxBurstBytes: options.maxBurstBytes ?? 16 * 1024 * 1024,
      retryMs: options.retryMs ?? 1000,
    },
    connections: new Set(),
    frames: new FrameCache(),
    defaultWorkDir: options.defaultWorkDir ?? process.cwd(),
    version: options.version ?? '0.1.0',
    draining: false,
    ...(options.unavailableEngines ? { unavailableEngines: options.unavailableEngines } : {}),
  };

  const app = Fastify({
    ...(options.loggerInstance
      ? { loggerInstance: options.loggerInstance }
      : { logger: options.logger ?? false }),
    genReqId: requestId,
    bodyLimit: options.bodyLimitBytes ?? 1024 * 1024,
    // Secrets never reach logs: the Authorization header is not part of the default request serializer.
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.decorateRequest('principal', null as never);

  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err.validation) {
      const field = validationField(err);
      const body = new HttpError(
        'invalid_request',
        `${field}: ${err.validation[0]?.message ?? 'is invalid'}`,
        field,
      );
      return reply.code(400).send(body.toBody());
    }
    const known = toHttpError(err);
    if (known) {
      if (known.status === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return reply.code(known.status).send(known.toBody());
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      // Fastify's own client errors: bad JSON, too large, unsupported media type.
      const code = err.statusCode === 413 ? 'payload_too_large' : 'invalid_request';
      const field = err.statusCode === 413 || err.code?.startsWith('FST_ERR_CTP') ? 'body' : undefined;
      return reply.code(err.statusCode).send(new HttpError(code, err.message, field).toBody());
    }
    request.log.error({ err }, 'request failed');
    return reply.code(500).send(new HttpError('internal', 'internal error').toBody());
  });

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
      });
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      await api.register(healthRoutes(context));
      await api.register(sessionRoutes(context));
      await api.register(syncRoutes(context));
      await api.register(runRoutes(context));
      await api.register(threadRoutes(context));
      await api.register(artifactRoutes(context));
      await api.register(checkpointRoutes(options.checkpoints));
      await api.register(forkRoutes(context, options.checkpoints));
      await api.register(auditRoutes(options.audit));
      for (const routes of options.routes ?? []) await api.register(routes(context));
    },
    { prefix: API_PREFIX },
  );

  const webRoot = options.webRoot ? resolve(options.webRoot) : undefined;
  if (webRoot && existsSync(webRoot)) {
    await app.register(fastifyStatic, { root: webRoot, prefix: '/', wildcard: false });
    // A single-page app: unknown non-API GETs get index.html.
    app.setNotFoundHandler((request, reply) => {
      if (request.method === 'GET' && !request.url.startsWith(API_PREFIX))
        return reply.sendFile('index.html');
      return reply
        .code(404)
        .send(new HttpError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`).toBody());
    });
  } else {
    app.setNotFoundHandler((request, reply) =>
      reply
        .code(404)
        .send(new HttpError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`).toBody()),
    );
  }

  app.addHook('onClose', async () => context.hub.close());

  const shutdown = async (): Promise<void> => {
    context.draining = true;
    for (const conn of [...context.connections]) conn.close('shutdown');
    // Waits for in-flight requests (their store commits) to finish; hijacked SSE sockets are already ended.
    await app.close();
  };

  return { app, context, shutdown };
}
