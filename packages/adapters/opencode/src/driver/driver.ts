import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '@agentlane/contract';
import type { EngineDriver, HarnessFrame, OpenSessionOptions, SessionBinding } from '@agentlane/engine-kit';
import { createOpencodeClient, type OpencodeClient } from '@opencode-ai/sdk/v2/client';
import { OPENCODE_CAPABILITIES } from '../translate/capabilities.js';
import { openCodeTranslator } from '../translate/translator.js';
import { resolveOpenCodeBinary } from './binary.js';
import { EventFeed } from './event-feed.js';
import { FORKED_FROM, forkOpenCodeSession } from './fork.js';
import { originBoundFetch } from './guarded-fetch.js';
import { type OpenCodeServer, startOpenCodeServer } from './server-process.js';
import { OpenCodeSession } from './session.js';

export interface OpenCodeDriverConfig {
  /** The engine name threads are created with (default "opencode"). */
  name?: string;
  label?: string;
  /** Attach to an OpenCode server that is already running instead of starting one. */
  url?: string;
  /** The opencode binary (default: the pinned opencode-ai platform package, or AGENTLANE_OPENCODE_BIN). */
  binary?: string;
  /**
   * OpenCode's HOME. It outlives agentlane (default: a directory per engine name under the OS temp dir), so
   * a restarted agentlane finds the OpenCode sessions its threads are bound to.
   */
  home?: string;
  /** OpenCode configuration (providers, model, permission …), laid over the safe defaults below. */
  config?: JsonObject;
  /** More environment for the OpenCode process (e.g. a provider API key); never logged. */
  env?: Record<string, string>;
  /**
   * `loopback` (the default): OpenCode's outbound HTTP(S) goes to a deny-all proxy, only loopback is
   * reachable (a local model server). `open`: it reaches its provider's public endpoint.
   */
  network?: 'loopback' | 'open';
  startTimeoutMs?: number;
  settleMs?: number;
  /** How long an idle without busy waits for a busy before it ends the turn (default 2000 ms). */
  idleGraceMs?: number;
  /** The waits before each reconnect of the event stream (default 250, 1000, 3000 ms); then the turn fails. */
  reconnectDelaysMs?: number[];
  onLog?(line: string): void;
}

/** Updates, sharing and the LSP/formatter downloads off: OpenCode must not reach past loopback. */
const SAFE_DEFAULTS: JsonObject = { autoupdate: false, share: 'disabled', lsp: false, formatter: false };

export interface OpenCodeDriver extends EngineDriver {
  /** Stops the OpenCode server this driver started (a no-op when attached to a URL). */
  dispose(): Promise<void>;
}

/**
 * The one `opencode serve` a driver starts (none with `config.url`), started on first use in the first
 * session's folder; a server that died (crash, OOM kill) is replaced, and the sessions it stored are in HOME
 * and reattach.
 */
function serverStarter(
  config: OpenCodeDriverConfig,
  name: string,
): { ensure(cwd: string): Promise<OpenCodeServer | null>; stop(): Promise<void> } {
  let server: Promise<OpenCodeServer> | null = null;
  const ensure = async (cwd: string): Promise<OpenCodeServer | null> => {
    if (config.url) return null;
    const current = server ? await server.catch(() => null) : null;
    if (current?.process.exit()) server = null;
    server ??= startOpenCodeServer({
      binary: resolveOpenCodeBinary(config.binary),
      home: config.home ?? defaultHome(name),
      config: { ...SAFE_DEFAULTS, ...config.config },
      cwd,
      ...(config.env ? { extraEnv: config.env } : {}),
      ...(config.network ? { network: config.network } : {}),
      ...(config.startTimeoutMs ? { startTimeoutMs: config.startTimeoutMs } : {}),
      ...(config.onLog ? { onLog: config.onLog } : {}),
    }).catch((error: unknown) => {
      server = null;
      throw error;
    });
    return server;
  };
  const stop = async () => {
    const current = server;
    server = null;
    if (current) await (await current.catch(() => null))?.stop();
  };
  return { ensure, stop };
}

export function createDriver(config: OpenCodeDriverConfig = {}): OpenCodeDriver {
  const name = config.name ?? 'opencode';
  const opencodeServer = serverStarter(config, name);
  const sessions = new Set<OpenCodeSession>();

  return {
    name,
    provider: 'opencode',
    label: config.label ?? 'OpenCode',
    translator: openCodeTranslator,
    async openSession(options: OpenSessionOptions) {
      const running = await opencodeServer.ensure(options.workDir);
      const url = running?.url ?? config.url;
      if (!url) throw new Error('no OpenCode server to talk to');
      const fetch = originBoundFetch(url);
      const client = createOpencodeClient({ baseUrl: url, fetch });
      const directory = options.workDir;
      // Subscribe first: nothing the session does from here on can be missed.
      const feed = await EventFeed.open({
        baseUrl: url,
        directory,
        fetch,
        ...(config.reconnectDelaysMs ? { reconnectDelaysMs: config.reconnectDelaysMs } : {}),
      });
      try {
        // The model list is slow on a cold project instance (seconds): fetch it alongside, record it when ready.
        const providers = client.config
          .providers({ directory })
          .then((r) => (r.data ? (r.data as unknown as JsonObject) : null))
          .catch(() => null);
        const [{ sessionId, origin }, health] = await Promise.all([
          bindNativeSession(client, directory, options),
          client.global.health().catch(() => null),
        ]);
        const version = (health?.data as { version?: string } | undefined)?.version;
        const binding: SessionBinding = {
          provider: 'opencode',
          nativeSessionId: sessionId,
          runtimeBinding: { directory, ...(config.url ? { url: config.url } : {}) },
          protocolVersion: version ?? 'unknown',
          capabilities: OPENCODE_CAPABILITIES,
        };
        const bound: HarnessFrame = {
          harness: 'session.bound',
          origin,
          generation: options.generation,
          nativeSessionId: sessionId,
          capabilities: OPENCODE_CAPABILITIES,
          agent: version ? { name: 'opencode', version } : { name: 'opencode' },
          cwd: directory,
          ...(version ? { protocolVersion: version } : {}),
        };
        options.emit(bound as unknown as JsonObject);
        const died = running
          ? running.process.exited.then(
              (exit) =>
                `opencode exited (code ${exit.code}, signal ${exit.signal}): ${running.process.stderrTail()}`,
            )
          : new Promise<string>(() => {});
        const session: OpenCodeSession = new OpenCodeSession({
          client,
          feed,
          directory,
          binding,
          died,
          settleMs: config.settleMs ?? 200,
          ...(config.idleGraceMs !== undefined ? { idleGraceMs: config.idleGraceMs } : {}),
          providers,
          onClose: async () => {
            sessions.delete(session);
          },
        });
        sessions.add(session);
        return session;
      } catch (error) {
        feed.close();
        throw error;
      }
    },
    async forkSession(request) {
      const running = await opencodeServer.ensure(request.workDir);
      const url = running?.url ?? config.url;
      if (!url) throw new Error('no OpenCode server to talk to');
      const client = createOpencodeClient({ baseUrl: url, fetch: originBoundFetch(url) });
      return forkOpenCodeSession(client, request, {
        ...(config.url ? { url: config.url } : {}),
      });
    },
    async dispose() {
      await Promise.allSettled([...sessions].map((s) => s.close()));
      await opencodeServer.stop();
    },
  };
}

/**
 * Reattaches to the OpenCode session a previous process bound this thread to (a fork's first open: the
 * forked session, origin "fork"), or creates one.
 */
async function bindNativeSession(
  client: OpencodeClient,
  directory: string,
  options: OpenSessionOptions,
): Promise<{ sessionId: string; origin: 'new' | 'resume' | 'fork' }> {
  const previousId = options.previous?.nativeSessionId;
  if (previousId) {
    const found = await client.session.get({ sessionID: previousId, directory });
    const forked = typeof options.previous?.runtimeBinding[FORKED_FROM] === 'string';
    if (found.data?.id) return { sessionId: found.data.id, origin: forked ? 'fork' : 'resume' };
  }
  const created = await client.session.create({ directory, title: `agentlane ${options.threadId}` });
  if (!created.data?.id) {
    throw new Error(`OpenCode did not create a session: ${JSON.stringify(created.error ?? null)}`);
  }
  return { sessionId: created.data.id, origin: 'new' };
}

function defaultHome(name: string): string {
  const tag = createHash('sha256').update(`${process.cwd()}\0${name}`).digest('hex').slice(0, 12);
  return join(tmpdir(), `agentlane-opencode-${tag}`);
}
