import type { CanonicalEvent, NegotiatedCapabilities, RunStatus, StreamEvent } from '@agentlane/contract';
import { createThreadSession, type LanePort, type ServerContext, workspaceGuard } from '@agentlane/server';
import type { Store } from '@agentlane/store';

/** A thread as session/list shows it. */
export interface AcpSessionInfo {
  sessionId: string;
  cwd: string;
  title: string | null;
  updatedAt: string;
}

/** An approval's answer (the option the client chose) or a question's. */
export type AcpApprovalAnswer = { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' };
export type AcpQuestionAnswer =
  | { outcome: 'answered'; choiceIds: string[] }
  | { outcome: 'declined' }
  | { outcome: 'cancelled' };

/**
 * What the ACP agent needs of agentlane: the same operations whether the store and the lane are in this
 * process (`localAcpBackend`) or behind a running server's HTTP API (`remoteAcpBackend`).
 */
export interface AcpBackend {
  /** The engine every new session runs. */
  readonly engine: string;
  /** The capability flags the engine negotiated in its newest opened session; undefined before any. */
  engineCapabilities(): Promise<NegotiatedCapabilities | undefined>;
  /** A new thread on the engine with `cwd` as its work folder; its id. */
  newSession(cwd: string): Promise<string>;
  hasSession(sessionId: string): Promise<boolean>;
  listSessions(cursor?: string): Promise<{ sessions: AcpSessionInfo[]; nextCursor: string | null }>;
  /** The thread's rows from the start up to its head when called, in order. */
  history(threadId: string): AsyncIterable<HistoryRow>;
  /** The thread's last committed row (the cursor a new run's stream starts after). */
  head(threadId: string): Promise<number>;
  /** Follows the thread after `after` (stream.opened, rows, run signals) until closed. */
  follow(threadId: string, after: number, listener: (event: StreamEvent) => void): Promise<{ close(): void }>;
  createRun(threadId: string, prompt: string): Promise<string>;
  runStatus(runId: string): Promise<RunStatus | undefined>;
  answerApproval(runId: string, approvalId: string, answer: AcpApprovalAnswer): Promise<void>;
  answerQuestion(runId: string, questionId: string, answer: AcpQuestionAnswer): Promise<void>;
  cancelRun(runId: string): Promise<void>;
}

/** One stored row of a thread. */
export interface HistoryRow {
  deliverySeq: number;
  event: CanonicalEvent;
}

/** Who answers through the agent (an ACP client has no principal of its own). */
export const ACP_ANSWERER = 'acp-client';

const PAGE = 1000;

/** The store and the lane in this process (`agentlane acp` on its own database). */
export function localAcpBackend(deps: {
  store: Store;
  lane: LanePort;
  engines: ServerContext['engines'];
  engine: string;
  /** Where session folders may lie. Default: the session's own cwd (the stdio client is the local user). */
  workspaceRoot?: string;
}): AcpBackend {
  const { store, lane, engine } = deps;
  return {
    engine,
    async engineCapabilities() {
      const page = await store.listThreads({ engine, limit: 20 });
      for (const thread of page.items) {
        const session = await store.getSession(thread.threadId);
        if (session && session.protocolVersion !== '') return session.capabilities;
      }
      return undefined;
    },
    async newSession(cwd) {
      const ctx = {
        store,
        engines: deps.engines,
        defaultWorkDir: cwd,
        checkWorkDir: workspaceGuard(deps.workspaceRoot ?? cwd),
      } as ServerContext;
      const { thread } = await createThreadSession(ctx, { engine, workDir: cwd }, 'params');
      return thread.threadId;
    },
    hasSession: async (sessionId) => (await store.getThread(sessionId)) !== null,
    async listSessions(cursor) {
      const page = await store.listThreads({ limit: 50, ...(cursor ? { cursor } : {}) });
      return {
        sessions: page.items.map((t) => ({
          sessionId: t.threadId,
          cwd: t.workDir ?? '/',
          title: t.title,
          updatedAt: t.updatedAt,
        })),
        nextCursor: page.nextCursor,
      };
    },
    async *history(threadId) {
      const head = await store.headDeliverySeq(threadId);
      for (let after = 0; after < head; ) {
        const page = await store.readEvents(threadId, after, PAGE);
        for (const row of page) if (row.deliverySeq <= head) yield row;
        if (page.length < PAGE) return;
        after = page[page.length - 1]?.deliverySeq ?? head;
      }
    },
    head: (threadId) => store.headDeliverySeq(threadId),
    follow: (threadId, after, listener) => lane.subscribe(threadId, after, listener),
    async createRun(threadId, prompt) {
      return (await lane.createRun({ threadId, prompt })).run.runId;
    },
    runStatus: async (runId) => (await store.getRun(runId))?.status,
    async answerApproval(runId, approvalId, answer) {
      await lane.answerApproval({ runId, approvalId, answer: { ...answer, answeredBy: ACP_ANSWERER } });
    },
    async answerQuestion(runId, questionId, answer) {
      await lane.answerQuestion({ runId, questionId, answer: { ...answer, answeredBy: ACP_ANSWERER } });
    },
    async cancelRun(runId) {
      await lane.cancelRun(runId);
    },
  };
}
