import {
  type AgentApp,
  agent,
  RequestError,
  type RequestPermissionResponse,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { CanonicalEvent, RunStatus, StopReason } from '@agentlane/contract';
import { createThreadSession, type LanePort, type ServerContext, workspaceGuard } from '@agentlane/server';
import type { Store } from '@agentlane/store';
import { acpStopReason, SessionUpdateTranslator } from './session-updates';

export interface AcpAgentDeps {
  store: Store;
  lane: LanePort;
  engines: ServerContext['engines'];
  /** The engine every new session runs. */
  engine: string;
  /**
   * Where session folders may lie. Default: the session's own cwd — the client of a stdio agent is the local
   * user, who picks the folder; a real path is still required.
   */
  workspaceRoot?: string;
  version?: string;
}

const SETTLED = new Set<RunStatus>(['completed', 'failed']);

/**
 * agentlane as an ACP agent (the SDK's agent side): a session is a thread, a prompt is a run, the run's
 * canonical events go out as session/update, an approval as session/request_permission, session/cancel is
 * run.cancel. Everything is in the store first, so a session survives this process: session/list, load
 * (history replayed from the store) and resume work after a restart.
 */
export function acpAgent(deps: AcpAgentDeps): AgentApp {
  const { store, lane } = deps;
  const active = new Map<string, string>();

  const requireThread = async (sessionId: string) => {
    const thread = await store.getThread(sessionId);
    if (!thread) throw RequestError.resourceNotFound(sessionId);
    return thread;
  };

  return agent({ name: 'agentlane' })
    .onRequest('initialize', () => ({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: false },
        sessionCapabilities: { list: {}, resume: {} },
      },
      agentInfo: { name: 'agentlane', version: deps.version ?? '0.1.0' },
      authMethods: [],
    }))
    .onRequest('session/new', async ({ params }) => {
      const ctx = {
        store,
        engines: deps.engines,
        defaultWorkDir: params.cwd,
        checkWorkDir: workspaceGuard(deps.workspaceRoot ?? params.cwd),
      } as ServerContext;
      const { thread } = await createThreadSession(
        ctx,
        { engine: deps.engine, workDir: params.cwd },
        'params',
      );
      return { sessionId: thread.threadId };
    })
    .onRequest('session/list', async ({ params }) => {
      const page = await store.listThreads({
        limit: 50,
        ...(params.cursor ? { cursor: params.cursor } : {}),
      });
      return {
        sessions: page.items.map((t) => ({
          sessionId: t.threadId,
          cwd: t.workDir ?? '/',
          title: t.title,
          updatedAt: t.updatedAt,
        })),
        nextCursor: page.nextCursor,
      };
    })
    .onRequest('session/load', async ({ params, client }) => {
      const thread = await requireThread(params.sessionId);
      const translator = new SessionUpdateTranslator();
      // The whole history from the store: every prompt as a user message, then what the run produced.
      const promptOf = new Map((await store.listRuns(thread.threadId)).map((r) => [r.runId, r.prompt]));
      const told = new Set<string>();
      for (let after = 0; ; ) {
        const page = await store.readEvents(thread.threadId, after, 1000);
        for (const row of page) {
          const updates: SessionUpdate[] = [];
          if (!told.has(row.runId)) {
            told.add(row.runId);
            const prompt = promptOf.get(row.runId);
            if (prompt)
              updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: prompt } });
          }
          updates.push(...translator.push(row.event));
          for (const update of updates)
            await client.notify('session/update', { sessionId: params.sessionId, update });
        }
        if (page.length < 1000) break;
        after = page[page.length - 1]?.deliverySeq ?? after;
      }
      return {};
    })
    .onRequest('session/resume', async ({ params }) => {
      await requireThread(params.sessionId);
      return {};
    })
    .onNotification('session/cancel', async ({ params }) => {
      const runId = active.get(params.sessionId);
      if (runId) await lane.cancelRun(runId);
    })
    .onRequest('session/prompt', async ({ params, client }) => {
      const thread = await requireThread(params.sessionId);
      const prompt = params.prompt
        .flatMap((b) => (b.type === 'text' ? [b.text] : b.type === 'resource_link' ? [b.uri] : []))
        .join('\n');
      if (prompt.trim() === '') throw RequestError.invalidParams({ prompt: 'no text in the prompt' });
      const head = await store.headDeliverySeq(thread.threadId);
      const { run } = await lane.createRun({ threadId: thread.threadId, prompt });
      active.set(params.sessionId, run.runId);
      const translator = new SessionUpdateTranslator();
      let stopReason: StopReason | undefined;
      let queue = Promise.resolve();
      let settle: (status: RunStatus) => void = () => {};
      const settled = new Promise<RunStatus>((resolve) => {
        settle = resolve;
      });
      const handle = async (event: CanonicalEvent) => {
        if (event.kind === 'turn.completed') stopReason = event.payload.stopReason;
        for (const update of translator.push(event))
          await client.notify('session/update', { sessionId: params.sessionId, update });
        if (event.kind === 'approval.requested') {
          const p = event.payload;
          const response: RequestPermissionResponse = await client.request('session/request_permission', {
            sessionId: params.sessionId,
            toolCall: { toolCallId: p.toolCallId ?? p.approvalId, title: p.title, rawInput: p.input ?? null },
            options: p.options.map((o) => ({ optionId: o.optionId, name: o.label, kind: o.kind })),
          });
          const outcome = response.outcome;
          await lane
            .answerApproval({
              runId: event.runId,
              approvalId: p.approvalId,
              answer:
                outcome.outcome === 'selected'
                  ? { outcome: 'selected', optionId: outcome.optionId, answeredBy: 'acp-client' }
                  : { outcome: 'cancelled', answeredBy: 'acp-client' },
            })
            .catch(() => undefined);
        }
      };
      const subscription = await lane.subscribe(thread.threadId, head, (e) => {
        if ('event' in e && e.event.runId === run.runId) {
          const event = e.event;
          queue = queue.then(() => handle(event)).catch(() => undefined);
        } else if ((e.type === 'run.status' || e.type === 'run.canonicalized') && e.runId === run.runId) {
          if (SETTLED.has(e.status)) queue = queue.then(() => settle(e.status));
        }
      });
      // Settled before the subscription heard it (signals are live only).
      void store.getRun(run.runId).then((r) => {
        if (r && SETTLED.has(r.status)) queue = queue.then(() => settle(r.status));
      });
      try {
        await settled;
        await queue;
      } finally {
        subscription.close();
        active.delete(params.sessionId);
      }
      return { stopReason: acpStopReason(stopReason) };
    });
}
