import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { openCheckpointSaver } from '@agentlane/checkpoints';
import type { JsonObject } from '@agentlane/contract';
import { SecretRedactor } from '@agentlane/engine-kit';
import { createLane, type LaneOptions } from '@agentlane/lane';
import { openLedger } from '@agentlane/ledger';
import { protocolRoutes } from '@agentlane/protocols/routes';
import {
  assertBindAllowed,
  createObservability,
  createServer,
  DEFAULT_LIMITS,
  keepServingOnUnhandledRejection,
} from '@agentlane/server';
import { isPostgresUrl } from '@agentlane/sql';
import { openStore, type Store } from '@agentlane/store';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { CliError, redactUrl } from '../cli-error.js';
import { resolveServeConfig, type ServeConfig, type ServeFlags } from '../config.js';
import { ensureDataDir } from '../data-dir.js';
import { probeOffers } from '../engine-probe.js';
import { buildDrivers, discoverEngines, disposeDrivers } from '../engine-registry.js';
import { createLogger } from '../logging.js';
import { serverSecrets } from '../secrets.js';
import { assertWorkFolders } from '../work-folders.js';
import type { CliCommand } from './command.js';

/** How long a found engine may take to start and negotiate before it is not offered. */
const PROBE_TIMEOUT_MS = 30_000;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export async function openDatabase(config: ServeConfig): Promise<Store> {
  const isPostgres = isPostgresUrl(config.db);
  if (!isPostgres) ensureDataDir(config.dataDir);
  try {
    return await openStore(config.db);
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { errors?: NodeJS.ErrnoException[] };
    const code = e.code ?? e.errors?.[0]?.code;
    const reason = code ?? e.message.split('\n')[0];
    throw new CliError(
      isPostgres
        ? `cannot reach the database ${redactUrl(config.db)} (${reason})`
        : `cannot open the SQLite database ${config.db} (${reason})`,
    );
  }
}

/**
 * The engines this process offers: the configured ones and, without a config file, every engine that can
 * really run here, each probed (started and stopped) first; those that failed the probe, with why.
 */
async function offeredEngines(config: ServeConfig, log: (line: string) => void) {
  const offers = config.discover ? await discoverEngines(process.env, process.cwd()) : [];
  // Every secret this process knows: the engines' keys (configured or found), the server's tokens and its
  // database password; the engines get them too, to keep them out of their own state (checkpoints).
  const secrets = serverSecrets({
    engines: config.engines,
    offers,
    tokens: config.tokens,
    databases: [config.db],
  });
  const redactor = new SecretRedactor(secrets);
  const configured = await buildDrivers(config.engines, {
    recordedSessions: config.recordedSessions,
    database: config.db,
    secrets,
  });
  const found = config.discover
    ? await probeOffers(offers, {
        database: config.db,
        secrets,
        timeoutMs: PROBE_TIMEOUT_MS,
        progress: log,
        redactor,
      })
    : { drivers: [], unavailable: [] };
  const taken = new Set(configured.map((d) => d.name));
  const drivers = [...found.drivers.filter((d) => !taken.has(d.name)), ...configured];
  for (const e of found.unavailable) log(`agentlane: engine ${e.name} is not offered: ${e.reason}`);
  return { drivers, unavailable: found.unavailable, redactor };
}

/** Why the server could not listen, in one line with what to do. */
function listenError(err: unknown, config: ServeConfig): CliError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new CliError(`port ${config.port} is already in use on ${config.host} (pick another with --port)`);
  if (code === 'EADDRNOTAVAIL')
    return new CliError(`cannot listen on ${config.host}: no such address on this machine`);
  if (code === 'EACCES') return new CliError(`not allowed to listen on ${config.host}:${config.port}`);
  return new CliError(`cannot listen on ${config.host}:${config.port} (${(err as Error).message})`);
}

/**
 * Starts store, lane and HTTP server; resolves with a stop function once listening. `log` gets the lifecycle
 * lines; `logger`, when given, also logs every request (the serve command passes one built from --log-level).
 */
export async function serve(
  config: ServeConfig,
  log: (line: string) => void = (line) => console.log(line),
  logger?: Logger,
): Promise<{ url: string; stop: (graceMs?: number) => Promise<void> }> {
  try {
    assertBindAllowed(config.host, config.tokens);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  assertWorkFolders(config);
  const { drivers, unavailable, redactor } = await offeredEngines(config, log);
  // Metrics and traces see the store, the ledger and the lane port through decorators (docs/operations.md).
  const observability = createObservability({ log: (line) => log(`agentlane: warn: ${line}`) });
  // Ordered open: the store, then the ledger and the checkpoint tables are opened and migrated before the
  // lane starts writing. On SQLite nothing then waits for a write lock at start-up (the lane's recovery would
  // hold it across awaits); the ledger and the savers use side connections without busy wait, whose busy
  // writes are retried asynchronously. On PostgreSQL all three share the process's one pool.
  const store = observability.observeStore(await openDatabase(config));
  // The audit ledger lives next to the events (own table in the same SQLite file or PostgreSQL database).
  const ledger = observability.observeAudit(await openLedger(config.db));
  // Checkpoints live next to the events: the same SQLite file (own tables) or the same PostgreSQL database.
  const checkpoints = await openCheckpointSaver(config.db);
  // `redactor` keeps the engines' keys out of stored frames and run errors (the lane hands it to each run's
  // RunPipeline).
  const laneOptions: LaneOptions = {
    store,
    drivers,
    redactor,
    audit: ledger,
    ownerId: `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`,
    maxConcurrentRuns: config.maxConcurrentRuns,
    runLeaseMs: config.runLeaseMs,
    runLeaseRenewMs: config.runLeaseRenewMs,
    approvalTimeoutMs: config.approvalTimeoutMs,
    cancelGraceMs: config.cancelGraceMs,
    engineIdleMs: config.engineIdleMs,
    turnIdleMs: config.turnIdleMs,
    workDirFor: (thread) => thread.workDir ?? config.workDir,
    log: (level, raw, rawDetail) => {
      // A lane message may quote an engine's error: no key in the log either.
      const message = redactor.text(raw);
      const detail = isObject(rawDetail) ? redactor.json(rawDetail as JsonObject) : {};
      if (logger) logger[level]({ component: 'lane', ...(isObject(detail) ? detail : {}) }, message);
      else if (level !== 'info') log(`agentlane: ${level}: ${message}`);
    },
  };
  const lane = createLane(laneOptions);
  await lane.start();
  const server = await createServer({
    store,
    lane: observability.observeLane(lane),
    observability,
    checkpoints,
    audit: ledger,
    engines: { get: (name) => drivers.find((d) => d.name === name), list: () => drivers },
    tokens: config.tokens,
    heartbeatMs: config.heartbeatMs,
    maxBufferBytes: config.maxBufferBytes,
    bodyLimitBytes: config.bodyLimitBytes,
    defaultWorkDir: config.workDir,
    workspaceRoot: config.workspaceRoot,
    allowedHosts: config.allowedHosts,
    limits: config.limits,
    webRoot: config.webRoot,
    routes: [protocolRoutes()],
    unavailableEngines: unavailable,
    ...(logger ? { loggerInstance: logger } : {}),
  });
  /** Streams end with a retry hint, running runs get up to graceMs, the rest are handed back (never cancelled). */
  const stopAll = async (graceMs = 0) => {
    // The lane's grace period starts now, while the HTTP side drains: the hand-back must not wait for it.
    await Promise.all([server.shutdown().catch(() => {}), lane.stop({ graceMs }).catch(() => {})]);
    await disposeDrivers(drivers);
    await checkpoints.close().catch(() => {});
    await ledger.close().catch(() => {});
    await store.close().catch(() => {});
    await observability.close().catch(() => {});
  };
  try {
    await server.app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await stopAll();
    throw listenError(err, config);
  }
  const address = server.app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${shownHost}:${port}`;
  const where = store.backend === 'postgres' ? redactUrl(config.db) : config.db;
  if (observability.tracing)
    log(
      `agentlane: traces go to ${redactUrl(observability.tracing.url)} over OTLP/HTTP${observability.tracing.captureContent ? ' (with message content)' : ''}`,
    );
  log(
    `agentlane listening on ${url} (store: ${store.backend} ${where}; engines: ${drivers.map((d) => d.name).join(', ') || 'none'})`,
  );
  return { url, stop: stopAll };
}

const LIMITS_HELP = `
Limits (config file "limits": {…}; defaults for a small team):
  requestTimeoutMs     ${DEFAULT_LIMITS.requestTimeoutMs}   the whole request must arrive within this (408)
  headersTimeoutMs     ${DEFAULT_LIMITS.headersTimeoutMs}   headers must arrive within this (408); a silent connection is closed
  keepAliveTimeoutMs   ${DEFAULT_LIMITS.keepAliveTimeoutMs}    idle keep-alive connections are closed after this
  connectionTimeoutMs  ${DEFAULT_LIMITS.connectionTimeoutMs}  a socket with no traffic is closed (above the SSE heartbeat)
  maxConnections       ${DEFAULT_LIMITS.maxConnections}    open TCP connections at once
  maxStreamsPerToken   ${DEFAULT_LIMITS.maxStreamsPerToken}      open SSE streams per token (429 past it)
  maxLocalStreams      ${DEFAULT_LIMITS.maxLocalStreams}     open SSE streams of all clients without a token together; each
                       (loopback address + X-Agentlane-Client id) gets maxStreamsPerToken of them
  maxRunsPerToken      ${DEFAULT_LIMITS.maxRunsPerToken}       runs queued or running per token, per process (429)
  requestsPerSecond    ${DEFAULT_LIMITS.requestsPerSecond}      sustained requests per token (429 with Retry-After)…
  requestBurst         ${DEFAULT_LIMITS.requestBurst}     …and the burst it may spend at once
  wrongTokensPerAddress ${DEFAULT_LIMITS.wrongTokensPerAddress}   wrong bearer tokens per address (IPv6 /64) per window; then 429
                       with Retry-After for every request of that address, a correct token too
  wrongTokenWindowMs   ${DEFAULT_LIMITS.wrongTokenWindowMs}  that window

Security:
  Without tokens the server binds loopback only and accepts only Host localhost, 127.0.0.1 or [::1]
  (plus config "allowedHosts" / env AGENTLANE_ALLOWED_HOSTS, comma-separated) against DNS rebinding.
  An empty AGENTLANE_TOKENS counts as unset: the config file's tokens stay in force.
`;

export const serveCommand: CliCommand = {
  name: 'serve',
  register(program: Command) {
    program
      .command('serve')
      .description('run the HTTP + SSE server (API under /api/harness, the web UI at / when built)')
      .option('--host <host>', 'address to bind; anything but loopback needs tokens (env AGENTLANE_HOST)')
      .option('--port <port>', `port to listen on, 0 for any (env AGENTLANE_PORT, default ${7433})`)
      .option(
        '--db <path|url>',
        'SQLite file or postgres://… URL (env AGENTLANE_DB, default <data-dir>/agentlane.db)',
      )
      .option('--config <file>', 'JSON config file: engines, tokens, limits (env AGENTLANE_CONFIG)')
      .option('--data-dir <dir>', 'folder for the SQLite database (env AGENTLANE_DATA_DIR, default ./.data)')
      .option(
        '--web-root <dir>',
        'built web UI to serve at / (env AGENTLANE_WEB_ROOT, default packages/web/dist)',
      )
      .option(
        '--log-level <level>',
        'fatal, error, warn, info, debug, trace or silent (env AGENTLANE_LOG_LEVEL, default info); JSON lines, pretty on a terminal',
      )
      .option(
        '--max-concurrent-runs <n>',
        'runs this process executes at once (env AGENTLANE_MAX_CONCURRENT_RUNS, default 16)',
      )
      .option('--run-lease-ms <ms>', 'lease on a running run (env AGENTLANE_RUN_LEASE_MS, default 10000)')
      .option(
        '--run-lease-renew-ms <ms>',
        'lease renewal and reclaim interval (env AGENTLANE_RUN_LEASE_RENEW_MS, default 2000)',
      )
      .option(
        '--shutdown-grace-ms <ms>',
        'SIGTERM waits this long for running runs, then hands them back (env AGENTLANE_SHUTDOWN_GRACE_MS, default 8000)',
      )
      .option(
        '--approval-timeout-ms <ms>',
        'an approval or question nobody answers this long is cancelled by system (env AGENTLANE_APPROVAL_TIMEOUT_MS, default 900000; 0: never)',
      )
      .option(
        '--cancel-grace-ms <ms>',
        'a stopped turn is waited for this long before its engine session is closed (env AGENTLANE_CANCEL_GRACE_MS, default 5000)',
      )
      .option(
        '--engine-idle-ms <ms>',
        'an engine session unused this long is closed; the next run reopens it (env AGENTLANE_ENGINE_IDLE_MS, default 600000; 0: never)',
      )
      .option(
        '--turn-idle-ms <ms>',
        'a turn whose engine sends nothing this long (nobody being asked) fails and its engine session is closed (env AGENTLANE_TURN_IDLE_MS, default 3600000; 0: never)',
      )
      .option(
        '--workspace-root <dir>',
        'no session may point outside this folder, an existing one (env AGENTLANE_WORKSPACE_ROOT, default the work folder)',
      )
      .addHelpText('after', LIMITS_HELP)
      .addHelpText(
        'after',
        `
Operations (docs/operations.md):
  GET /metrics                Prometheus metrics; with tokens configured it needs a token scoped to all threads
  OTEL_EXPORTER_OTLP_ENDPOINT
                              OTLP/HTTP collector (…/v1/traces is added); OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
                              is used as is; unset means no tracing. OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME,
                              OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_* and OTEL_SDK_DISABLED are honoured
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true
                              put prompts, outputs and tool input/output in spans (off by default)`,
      )
      .action(async (flags: ServeFlags) => {
        const config = resolveServeConfig(flags);
        const logger = createLogger(config.logLevel);
        // One overlooked rejection must not become a remote kill switch: logged, and the server keeps serving.
        keepServingOnUnhandledRejection((line) => logger.error(line));
        const { stop } = await serve(config, (line) => logger.info(line), logger);
        let stopping = false;
        const onSignal = (signal: string) => {
          if (stopping) return;
          stopping = true;
          const grace = config.shutdownGraceMs;
          logger.info(
            `agentlane: ${signal}: closing streams, waiting up to ${grace} ms for running runs, then handing them back`,
          );
          // The promise: the process is gone within the grace period, whatever an engine or the database does.
          // The lane gets most of it; the rest is for closing the database and the engines.
          setTimeout(() => {
            logger.warn('agentlane: the grace period is over; exiting');
            process.exit(1);
          }, grace).unref();
          void stop(Math.max(0, grace - Math.min(1500, grace / 4))).then(() => process.exit(0));
        };
        // SIGHUP too (the terminal closed): it killed the process at once, its runs settled as lost a lease later.
        for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
          process.on(signal, () => onSignal(signal));
      });
  },
};
