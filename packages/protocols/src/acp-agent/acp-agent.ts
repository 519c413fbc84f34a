import { isAbsolute } from 'node:path';
import {
  type AgentApp,
  type AgentCapabilities,
  agent,
  type ContentBlock,
  RequestError,
} from '@agentclientprotocol/sdk';
import type { NegotiatedCapabilities } from '@agentlane/contract';
import { guardInput, MAX_PROMPT_CHARS } from '@agentlane/server';
import type { AcpBackend } from './backend.js';
import { replayHistory } from './history-replay.js';
import { asInvalidParams } from './invalid-params.js';
import { runPrompt } from './prompt-run.js';
import { SessionPrompts } from './session-prompts.js';

export interface AcpAgentDeps {
  backend: AcpBackend;
  version?: string;
  /** How long a prompt waits for an unreachable backend before it fails (default UNREACHABLE_MS). */
  unreachableMs?: number;
}

/**
 * What `initialize` advertises, from the engine's negotiated capability flags. Load and list come from
 * agentlane's store whatever the engine (the history is replayed from it); resume is advertised only when
 * the engine can reattach its own session (`resume` or `load`), since otherwise a resumed session's next
 * prompt would reach an engine that forgot the conversation. Unknown flags (no session of the engine
 * opened yet) advertise no resume. Prompts are text: agentlane's run.create carries text only.
 */
export function advertisedCapabilities(
  engine: string,
  flags: NegotiatedCapabilities | undefined,
): AgentCapabilities {
  return {
    loadSession: true,
    promptCapabilities: { image: false, audio: false, embeddedContext: false },
    sessionCapabilities: { list: {}, ...(flags?.resume || flags?.load ? { resume: {} } : {}) },
    _meta: { agentlane: { engine, capabilities: flags ?? null } },
  };
}

/**
 * agentlane as an ACP agent (the SDK's agent side): a session is a thread, a prompt is a run, the run's
 * canonical events go out as session/update, an approval and a question as session/request_permission,
 * session/cancel is run.cancel. Everything is in the store first, so a session survives this process:
 * session/list, load (history replayed from the store) and resume work after a restart.
 */
export function acpAgent({ backend, version, unreachableMs }: AcpAgentDeps): AgentApp {
  const active = new SessionPrompts();
  // What initialize advertised: resume is served only when it was, so a client never resumes a session
  // the engine cannot reattach.
  let resumable = false;

  const requireSession = async (sessionId: string) => {
    if (!(await backend.hasSession(sessionId))) throw RequestError.resourceNotFound(sessionId);
  };

  return agent({ name: 'agentlane' })
    .onRequest('initialize', async () => {
      const agentCapabilities = advertisedCapabilities(backend.engine, await backend.engineCapabilities());
      resumable = agentCapabilities.sessionCapabilities?.resume != null;
      return {
        protocolVersion: 1,
        agentCapabilities,
        agentInfo: { name: 'agentlane', version: version ?? '0.1.0' },
        authMethods: [],
      };
    })
    .onRequest('session/new', async ({ params }) => {
      // ACP requires an absolute cwd; anything the backend refuses as a bad request is the client's params too.
      if (typeof params.cwd !== 'string' || !isAbsolute(params.cwd))
        throw RequestError.invalidParams({ cwd: 'must be an absolute path' });
      try {
        return { sessionId: await backend.newSession(params.cwd) };
      } catch (error) {
        throw asInvalidParams(error) ?? error;
      }
    })
    .onRequest('session/list', async ({ params }) => {
      try {
        return await backend.listSessions(params.cursor ?? undefined);
      } catch (error) {
        throw asInvalidParams(error, 'cursor') ?? error;
      }
    })
    .onRequest('session/load', async ({ params, client }) => {
      await requireSession(params.sessionId);
      await replayHistory(backend, client, params.sessionId);
      return {};
    })
    .onRequest('session/resume', async ({ params }) => {
      if (!resumable) throw RequestError.methodNotFound('session/resume');
      await requireSession(params.sessionId);
      return {};
    })
    .onNotification('session/cancel', async ({ params }) => {
      // Every prompt of the session (ACP: all its ongoing operations). A notification has no answer to carry
      // a failure (a server gone): the prompt's status poll reports it.
      const runIds = active.cancel(params.sessionId);
      await Promise.all(runIds.map((runId) => backend.cancelRun(runId).catch(() => undefined)));
    })
    .onRequest('session/prompt', async ({ params, client }) => {
      // Registered before anything is awaited: a session/cancel right behind the prompt reaches it.
      const entry = active.begin(params.sessionId);
      try {
        await requireSession(params.sessionId);
        const prompt = promptText(params.prompt);
        return await runPrompt({
          backend,
          client,
          sessionId: params.sessionId,
          prompt,
          active,
          entry,
          unreachableMs,
        });
      } finally {
        active.end(params.sessionId, entry);
      }
    });
}

/** The prompt's text: its text blocks and the links it refers to (run.create carries text only). */
function promptText(blocks: ContentBlock[]): string {
  const prompt = blocks
    .flatMap((b) => (b.type === 'text' ? [b.text] : b.type === 'resource_link' ? [b.uri] : []))
    .join('\n');
  if (prompt.trim() === '') throw RequestError.invalidParams({ prompt: 'no text in the prompt' });
  // What the server's input guard refuses in any body, checked here so both backends refuse alike, before a
  // run stores it (SQLite would keep a lone surrogate as invalid UTF-8) and before a remote server's 400
  // would surface as an internal error.
  try {
    guardInput('prompt', prompt);
  } catch (error) {
    throw RequestError.invalidParams({ prompt: (error as Error).message.replace(/^prompt /, '') });
  }
  // The run route's own bound, checked here so a local and a remote backend refuse alike.
  if (prompt.length > MAX_PROMPT_CHARS)
    throw RequestError.invalidParams({
      prompt: `the prompt is ${prompt.length} characters; at most ${MAX_PROMPT_CHARS} are accepted`,
    });
  return prompt;
}
