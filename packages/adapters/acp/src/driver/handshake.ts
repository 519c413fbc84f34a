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
import { FORK_OF } from './fork.js';
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
 * session/load), a fork's origin forked (session/fork, fork.ts), or a new one. A previous session the engine no longer knows is reported as a non-fatal
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
  let session = await earlierSession(ask, agentCapabilities, options, emit);
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

type Bound = Pick<Handshake, 'origin' | 'result' | 'sessionId'>;

/** How to get back the thread's earlier native session, and what to say when the engine cannot. */
interface Plan {
  method: 'session/resume' | 'session/load' | 'session/fork';
  sessionId: string;
  origin: 'resume' | 'load' | 'fork';
  failure: string;
  /** Why not to ask at all (the agent stopped advertising the method). */
  refused?: string;
}

/**
 * The previous native session continued (resume, which replays nothing, where advertised, else load, where
 * the agent replays the history first); or, on a fork's first open (no session of its own yet, fork.ts),
 * the origin's session forked.
 */
function planFor(agentCapabilities: JsonObject, previous: OpenSessionOptions['previous']): Plan | undefined {
  const sessionCaps = asObject(agentCapabilities.sessionCapabilities) ?? {};
  const previousId = previous?.nativeSessionId;
  if (previousId) {
    if (isObject(sessionCaps.resume))
      return {
        method: 'session/resume',
        sessionId: previousId,
        origin: 'resume',
        failure: continueFailure('session/resume'),
      };
    if (agentCapabilities.loadSession === true)
      return {
        method: 'session/load',
        sessionId: previousId,
        origin: 'load',
        failure: continueFailure('session/load'),
      };
    return undefined;
  }
  const forkOf = previous ? asString(previous.runtimeBinding[FORK_OF]) : undefined;
  if (!forkOf) return undefined;
  return {
    method: 'session/fork',
    sessionId: forkOf,
    origin: 'fork',
    failure: `could not fork session ${forkOf} with session/fork`,
    ...(isObject(sessionCaps.fork)
      ? {}
      : { refused: 'the agent does not advertise sessionCapabilities.fork' }),
  };
}

const continueFailure = (method: string) => `could not continue the previous session with ${method}`;

/**
 * The earlier native session (planFor), or undefined when there is none or the engine lost it: that is
 * reported as a non-fatal engine.error, and the caller starts a new session.
 */
async function earlierSession(
  ask: Ask,
  agentCapabilities: JsonObject,
  options: OpenSessionOptions,
  emit: (frame: JsonValue) => void,
): Promise<Bound | undefined> {
  const plan = planFor(agentCapabilities, options.previous);
  if (!plan) return undefined;
  try {
    if (plan.refused) throw new Error(plan.refused);
    const result = await ask(plan.method, {
      sessionId: plan.sessionId,
      cwd: options.workDir,
      mcpServers: [],
    });
    // session/fork answers with the new session's id; resume and load continue the one asked for.
    const sessionId = plan.origin === 'fork' ? asString(result.sessionId) : plan.sessionId;
    if (!sessionId) throw new Error(`${plan.method} returned no sessionId`);
    return { origin: plan.origin, result, sessionId };
  } catch (error) {
    // The engine no longer knows the session (its state was lost): say so, and start a new one.
    emit(
      harness({
        harness: 'engine.error',
        message: `${plan.failure}: ${errorMessage(error)}; started a new one`,
        fatal: false,
      }),
    );
    return undefined;
  }
}
