import {
  type AgentApp,
  type AgentCapabilities,
  agent,
  RequestError,
  type RequestPermissionResponse,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { CanonicalEvent, NegotiatedCapabilities, RunStatus, StopReason } from '@agentlane/contract';
import type { AcpBackend } from './backend.js';
import { answerOfPermission, questionAsPermission } from './questions.js';
import { acpStopReason, SessionUpdateTranslator } from './session-updates.js';

export interface AcpAgentDeps {
  backend: AcpBackend;
  version?: string;
}

const SETTLED = new Set<RunStatus>(['completed', 'failed']);

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
export function acpAgent({ backend, version }: AcpAgentDeps): AgentApp {
  const active = new Map<string, string>();

  const requireSession = async (sessionId: string) => {
    if (!(await backend.hasSession(sessionId))) throw RequestError.resourceNotFound(sessionId);
  };

  return agent({ name: 'agentlane' })
    .onRequest('initialize', async () => ({
      protocolVersion: 1,
      agentCapabilities: advertisedCapabilities(backend.engine, await backend.engineCapabilities()),
      agentInfo: { name: 'agentlane', version: version ?? '0.1.0' },
      authMethods: [],
    }))
    .onRequest('session/new', async ({ params }) => ({ sessionId: await backend.newSession(params.cwd) }))
    .onRequest('session/list', ({ params }) => backend.listSessions(params.cursor ?? undefined))
    .onRequest('session/load', async ({ params, client }) => {
      await requireSession(params.sessionId);
      const translator = new SessionUpdateTranslator();
      // The whole history from the store: each run's prompt (its turn.started) as a user message, then
      // what the run produced.
      for await (const row of backend.history(params.sessionId)) {
        const updates: SessionUpdate[] =
          row.event.kind === 'turn.started' && row.event.payload.prompt
            ? [
                {
                  sessionUpdate: 'user_message_chunk',
                  content: { type: 'text', text: row.event.payload.prompt },
                },
              ]
            : translator.push(row.event);
        for (const update of updates)
          await client.notify('session/update', { sessionId: params.sessionId, update });
      }
      return {};
    })
    .onRequest('session/resume', async ({ params }) => {
      await requireSession(params.sessionId);
      return {};
    })
    .onNotification('session/cancel', async ({ params }) => {
      const runId = active.get(params.sessionId);
      if (runId) await backend.cancelRun(runId);
    })
    .onRequest('session/prompt', async ({ params, client }) => {
      const { sessionId } = params;
      await requireSession(sessionId);
      const prompt = params.prompt
        .flatMap((b) => (b.type === 'text' ? [b.text] : b.type === 'resource_link' ? [b.uri] : []))
        .join('\n');
      if (prompt.trim() === '') throw RequestError.invalidParams({ prompt: 'no text in the prompt' });
      const head = await backend.head(sessionId);
      const runId = await backend.createRun(sessionId, prompt);
      active.set(sessionId, runId);
      const translator = new SessionUpdateTranslator();
      let stopReason: StopReason | undefined;
      let cursor = head;
      let queue = Promise.resolve();
      let settle: () => void = () => {};
      const settled = new Promise<void>((resolve) => {
        settle = resolve;
      });
      let settling = false;
      // The run's last rows may still be on their way: end after what is committed once it settled.
      const settleAfterCommitted = async () => {
        if (settling) return;
        settling = true;
        const committed = await backend.head(sessionId);
        for (const deadline = Date.now() + 5000; cursor < committed && Date.now() < deadline; )
          await new Promise((r) => setTimeout(r, 5));
        queue = queue.then(settle);
      };
      const handle = async (event: CanonicalEvent) => {
        if (event.kind === 'turn.completed') stopReason = event.payload.stopReason;
        for (const update of translator.push(event))
          await client.notify('session/update', { sessionId, update });
        if (event.kind === 'approval.requested') {
          const p = event.payload;
          const response: RequestPermissionResponse = await client.request('session/request_permission', {
            sessionId,
            toolCall: { toolCallId: p.toolCallId ?? p.approvalId, title: p.title, rawInput: p.input ?? null },
            options: p.options.map((o) => ({ optionId: o.optionId, name: o.label, kind: o.kind })),
          });
          const outcome = response.outcome;
          await backend
            .answerApproval(
              runId,
              p.approvalId,
              outcome.outcome === 'selected'
                ? { outcome: 'selected', optionId: outcome.optionId }
                : { outcome: 'cancelled' },
            )
            .catch(() => undefined);
        } else if (event.kind === 'question.requested') {
          const response: RequestPermissionResponse = await client.request(
            'session/request_permission',
            questionAsPermission(sessionId, event.payload),
          );
          await backend
            .answerQuestion(runId, event.payload.questionId, answerOfPermission(event.payload, response))
            .catch(() => undefined);
        }
      };
      const subscription = await backend.follow(sessionId, head, (e) => {
        if ('event' in e) {
          cursor = Math.max(cursor, e.deliverySeq);
          if (e.event.runId !== runId) return;
          const event = e.event;
          queue = queue.then(() => handle(event)).catch(() => undefined);
        } else if ((e.type === 'run.status' || e.type === 'run.canonicalized') && e.runId === runId) {
          if (SETTLED.has(e.status)) void settleAfterCommitted();
        }
      });
      // Settled before the subscription heard it (signals are live only), or a signal lost in a reconnect.
      const poll = setInterval(() => {
        void backend.runStatus(runId).then((status) => {
          if (status && SETTLED.has(status)) void settleAfterCommitted();
        });
      }, 1000);
      void backend.runStatus(runId).then((status) => {
        if (status && SETTLED.has(status)) void settleAfterCommitted();
      });
      try {
        await settled;
        await queue;
      } finally {
        clearInterval(poll);
        subscription.close();
        active.delete(sessionId);
      }
      return { stopReason: acpStopReason(stopReason) };
    });
}
