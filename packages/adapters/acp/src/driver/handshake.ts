import type { ClientConnection } from '@agentclientprotocol/sdk';
import type { JsonObject, JsonValue, SessionOrigin } from '@agentlane/contract';
import {
  asObject,
  asString,
  isObject,
  type OpenSessionOptions,
  type OwnedProcess,
} from '@agentlane/engine-kit';
import type { AcpEngineConfig } from './config.js';
import { errorMessage, harness, withTimeout } from './rpc-util.js';

const PROTOCOL_VERSION = 1;

/** What the start of an ACP session established: the agent, and the native session and how it came to be. */
export interface Handshake {
  protocolVersion: string;
  agent: { name: string; version?: string } | undefined;
  agentCapabilities: JsonObject;
  origin: SessionOrigin;
  /** The response of session/new, session/load or session/resume. */
  result: JsonObject;
  sessionId: string;
}

/** One request that fails when the engine exits or the start timeout passes first. */
type Ask = (method: string, params: Record<string, unknown>) => Promise<JsonObject>;

/**
 * initialize, then the native session: the previous one continued (session/resume where advertised, else
 * session/load) or a new one. A previous session the engine no longer knows is reported as a non-fatal
 * engine.error through `emit`, and a new one is started.
 */
export async function acpHandshake(
  conn: ClientConnection,
  engine: OwnedProcess,
  config: AcpEngineConfig,
  options: OpenSessionOptions,
  emit: (frame: JsonValue) => void,
): Promise<Handshake> {
  const exited = engine.exited.then((exit) => {
    throw new Error(
      `the engine exited while starting (code ${exit.code ?? 'none'}, signal ${exit.signal ?? 'none'})`,
    );
  });
  const timeout = config.startTimeoutMs ?? 60_000;
  const init = await withTimeout(
    Promise.race([
      conn.agent.request('initialize', {
        protocolVersion: PROTOCOL_VERSION,
        // Client fs is not offered: engines then use their own fs (Gemini cannot create files through a
        // client fs), and no terminal: commands run inside the engine.
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'agentlane', version: '0.1.0' },
      }),
      exited,
    ]),
    timeout,
    'initialize',
  );
  const agentCapabilities = (init.agentCapabilities ?? {}) as unknown as JsonObject;
  const ask: Ask = async (method, params) =>
    (await withTimeout(
      Promise.race([
        (conn.agent.request as (m: string, p: unknown) => Promise<unknown>)(method, params),
        exited,
      ]),
      timeout,
      method,
    )) as JsonObject;
  const continued = await continueSession(ask, agentCapabilities, options, emit);
  let session = continued;
  if (!session) {
    const result = await ask('session/new', { cwd: options.workDir, mcpServers: [] });
    const sessionId = asString(result.sessionId) ?? '';
    if (!sessionId) throw new Error('session/new returned no sessionId');
    session = { origin: 'new', result, sessionId };
  }
  const info = init.agentInfo;
  const agent = info ? { name: info.name, ...(info.version ? { version: info.version } : {}) } : undefined;
  return { protocolVersion: String(init.protocolVersion), agent, agentCapabilities, ...session };
}

/** The previous native session continued, or undefined when there is none or the engine lost it. */
async function continueSession(
  ask: Ask,
  agentCapabilities: JsonObject,
  options: OpenSessionOptions,
  emit: (frame: JsonValue) => void,
): Promise<Pick<Handshake, 'origin' | 'result' | 'sessionId'> | undefined> {
  const previousId = options.previous?.nativeSessionId ?? null;
  if (!previousId) return undefined;
  const sessionCaps = asObject(agentCapabilities.sessionCapabilities) ?? {};
  // Resume (no history replay) where advertised, else load (the agent replays the history first).
  const method = isObject(sessionCaps.resume)
    ? 'session/resume'
    : agentCapabilities.loadSession === true
      ? 'session/load'
      : null;
  if (!method) return undefined;
  try {
    const result = await ask(method, { sessionId: previousId, cwd: options.workDir, mcpServers: [] });
    return { origin: method === 'session/resume' ? 'resume' : 'load', result, sessionId: previousId };
  } catch (error) {
    // The engine no longer knows the session (its state was lost): say so, and start a new one.
    emit(
      harness({
        harness: 'engine.error',
        message: `could not continue the previous session with ${method}: ${errorMessage(error)}; started a new one`,
        fatal: false,
      }),
    );
    return undefined;
  }
}
