import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import { type AgentApp, ndJsonStream } from '@agentclientprotocol/sdk';
import { AgentlaneClient, type HealthResponse } from '@agentlane/client';
import { SecretRedactor } from '@agentlane/engine-kit';
import { createLane, type LaneOptions } from '@agentlane/lane';
import { acpAgent, localAcpBackend, remoteAcpBackend, screenedStream } from '@agentlane/protocols';
import { CliError, printable } from '../cli-error.js';
import { resolveServeConfig, type ServeConfig, type ServeFlags } from '../config.js';
import { probeOffers } from '../engine-probe.js';
import { buildDrivers, discoverEngines, disposeDrivers, type EngineOffer } from '../engine-registry.js';
import { bearerToken, parseServerUrl } from '../remote.js';
import { serverRedactor, serverSecrets } from '../secrets.js';
import { openDatabase } from './serve.js';

export interface AcpFlags extends Pick<ServeFlags, 'db' | 'config' | 'dataDir'> {
  engine: string;
  server?: string;
}

/**
 * `agentlane acp --engine NAME`: agentlane as an ACP agent over stdio, in front of one of its engines, with
 * the store and the lane in this process (SQLite by default, the same database as `serve`). stdout carries
 * only JSON-RPC; diagnostics go to stderr.
 */
export async function runAcp(flags: AcpFlags): Promise<void> {
  if (flags.server) return runAcpOnServer(flags.server, flags.engine);
  const config = resolveServeConfig(flags);
  const { drivers, offers } = await enginesFor(config, flags.engine);
  const driver = drivers.find((d) => d.name === flags.engine);
  if (!driver) {
    throw new CliError(
      `unknown engine "${flags.engine}" (configured: ${drivers.map((d) => d.name).join(', ') || 'none'})`,
    );
  }
  // serve's one-line refusal of a database it cannot open, not a stack trace.
  const store = await openDatabase(config);
  // Keeps the engines' keys out of stored frames, run errors and the log (see serve).
  const redactor = serverRedactor({
    engines: config.engines,
    offers,
    tokens: config.tokens,
    databases: [config.db],
  });
  const laneOptions: LaneOptions = {
    store,
    drivers,
    redactor,
    ownerId: `acp-${hostname()}-${process.pid}`,
    approvalTimeoutMs: config.approvalTimeoutMs,
    turnIdleMs: config.turnIdleMs,
    workDirFor: (thread) => thread.workDir ?? config.workDir,
    log: (level, message) => {
      if (level !== 'info')
        process.stderr.write(`agentlane: ${level}: ${printable(redactor.text(message))}\n`);
    },
  };
  const lane = createLane(laneOptions);
  await lane.start();
  const app = acpAgent({
    backend: localAcpBackend({
      store,
      lane,
      engines: { get: (n) => drivers.find((d) => d.name === n), list: () => drivers },
      engine: driver.name,
    }),
  });
  const stop = async () => {
    await lane.stop().catch(() => {});
    await disposeDrivers(drivers);
    await store.close().catch(() => {});
    process.exit(0);
  };
  await serveStdio(app, stop);
}

const SERVER_WAIT_MS = 30_000;

/**
 * `agentlane acp --engine NAME --server URL`: the same agent as a client of a running server (its token from
 * AGENTLANE_TOKEN), so the editor's sessions are that server's threads, next to the web UI's.
 */
async function runAcpOnServer(url: string, engine: string): Promise<void> {
  const origin = parseServerUrl(url, '--server');
  const token = bearerToken(undefined);
  const client = new AgentlaneClient({ url: origin.origin, ...(token ? { token } : {}) });
  // An editor may start the agent while the server is still starting: wait for it a while.
  let health: HealthResponse | undefined;
  for (const deadline = Date.now() + SERVER_WAIT_MS; !health; ) {
    health = await client.health().catch((err: Error) => {
      if (Date.now() > deadline)
        throw new CliError(`--server ${origin.origin}: ${err.message.split('\n')[0]}`);
      return undefined;
    });
    if (!health) await new Promise((r) => setTimeout(r, 250));
  }
  const engines = health.engines?.map((e) => e.name);
  if (engines && !engines.includes(engine))
    throw new CliError(
      `unknown engine "${engine}" on ${origin.origin} (configured: ${engines.join(', ') || 'none'})`,
    );
  await serveStdio(acpAgent({ backend: remoteAcpBackend(client, engine) }), async () => process.exit(0));
}

/** Connects the agent to this process's stdio until the client closes it or a signal stops the process. */
async function serveStdio(app: AgentApp, stop: () => Promise<void>): Promise<void> {
  // stdin pushed chunk by chunk: a pulled Readable.toWeb(process.stdin) handed a message over only when the
  // next one arrived, so a client waiting for the initialize answer waited forever.
  // Once the reader gave up on the stream (the SDK cancels it for a message over its size limit), stdin's
  // later chunks are dropped: enqueueing into a cancelled stream threw and killed the process with a stack.
  let open = true;
  let cancelledFor: string | undefined;
  const onData = (chunk: Buffer) => {
    if (open) controller?.enqueue(new Uint8Array(chunk));
  };
  const onEnd = () => {
    if (open) controller?.close();
    open = false;
  };
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      process.stdin.on('data', onData);
      process.stdin.on('end', onEnd);
    },
    cancel(reason: unknown) {
      if (open && reason !== undefined)
        cancelledFor = reason instanceof Error ? reason.message : String(reason);
      open = false;
      process.stdin.off('data', onData);
      process.stdin.pause();
    },
  });
  const stream = screenedStream(
    ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, input),
  );
  const connection = app.connect(stream);
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  await connection.closed.catch((error: unknown) => {
    cancelledFor ??= error instanceof Error ? error.message : String(error);
  });
  // The connection cannot go on (a message over the SDK's limit leaves the line stream unreadable): one line
  // on stderr (stdout is the protocol's), then the usual shutdown.
  if (cancelledFor !== undefined)
    process.stderr.write(
      `agentlane acp: the client's stream ended: ${printable(cancelledFor.split('\n')[0] ?? '')}\n`,
    );
  await stop();
}

/**
 * The configured engines and, when the named one is not among them and discovery is on (no config file, or
 * `"discover": true`), that engine as `serve` would find it here: probed (started once) first, progress on
 * stderr. Before, `acp` knew only configured engines, so an engine `serve` offered was "unknown" here.
 */
async function enginesFor(config: ServeConfig, name: string) {
  // The engines keep what the server knows to be secret out of their own state (see serve).
  const known = { engines: config.engines, tokens: config.tokens, databases: [config.db] };
  const drivers = await buildDrivers(config.engines, {
    recordedSessions: config.recordedSessions,
    database: config.db,
    secrets: serverSecrets(known),
  });
  if (drivers.some((d) => d.name === name) || !config.discover)
    return { drivers, offers: [] as EngineOffer[] };
  const offers = (await discoverEngines(process.env, process.cwd())).filter((o) => o.entry.name === name);
  const secrets = serverSecrets({ ...known, offers });
  const found = await probeOffers(offers, {
    database: config.db,
    timeoutMs: 30_000,
    progress: (line) => process.stderr.write(`${printable(line)}\n`),
    redactor: new SecretRedactor(secrets),
    secrets,
  });
  for (const e of found.unavailable)
    process.stderr.write(`agentlane: engine ${e.name} is not offered: ${printable(e.reason)}\n`);
  return { drivers: [...found.drivers, ...drivers], offers };
}
