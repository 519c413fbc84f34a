import { type AgentlaneClient, ApiError } from '@agentlane/client';
import type { StreamEvent } from '@agentlane/contract';
import type { AcpBackend } from './backend.js';

/**
 * A running agentlane server's HTTP API through @agentlane/client (`agentlane acp --server URL`): the
 * threads, runs and answers are the server's, so an editor session and the web UI see the same thread.
 */
export function remoteAcpBackend(client: AgentlaneClient, engine: string): AcpBackend {
  // The client's subscription reconnects on its own (Last-Event-ID), with no gap and no duplicate.
  const stream = (threadId: string, after: number, signal: AbortSignal) =>
    client.subscribeThread(threadId, { after, signal });
  return {
    engine,
    async engineCapabilities() {
      const { sessions } = await client.listSessions({ engine, limit: 20 });
      return sessions.find((s) => s.protocolVersion)?.capabilities;
    },
    async newSession(cwd) {
      return (await client.createSession({ engine, workDir: cwd })).id;
    },
    async hasSession(sessionId) {
      try {
        await client.getSession(sessionId);
        return true;
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return false;
        throw err;
      }
    },
    async listSessions(cursor) {
      const page = await client.listSessions({ limit: 50, ...(cursor ? { cursor } : {}) });
      return {
        sessions: page.sessions.map((s) => ({
          sessionId: s.id,
          cwd: s.workDir ?? '/',
          title: s.title,
          updatedAt: s.updatedAt,
        })),
        nextCursor: page.nextCursor,
      };
    },
    async *history(threadId) {
      const abort = new AbortController();
      let head = Number.POSITIVE_INFINITY;
      try {
        for await (const event of stream(threadId, 0, abort.signal)) {
          if (event.type === 'stream.opened') head = event.headDeliverySeq;
          else if ('event' in event) yield event;
          const at = 'event' in event ? event.deliverySeq : 0;
          if (at >= head) return;
        }
      } finally {
        abort.abort();
      }
    },
    async head(threadId) {
      return (await client.getSession(threadId)).activity?.headSeq ?? 0;
    },
    async follow(threadId, after, listener: (event: StreamEvent) => void) {
      const abort = new AbortController();
      void (async () => {
        try {
          for await (const event of stream(threadId, after, abort.signal)) listener(event);
        } catch {
          // A permanent refusal ends the subscription; the run's status poll still settles the prompt.
        }
      })();
      return { close: () => abort.abort() };
    },
    async createRun(threadId, prompt) {
      return (await client.createRun(threadId, { prompt })).runId;
    },
    async runStatus(runId) {
      try {
        return (await client.getRun(runId)).status;
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return undefined;
        throw err;
      }
    },
    async answerApproval(runId, approvalId, answer) {
      await client.answerApproval(runId, approvalId, answer);
    },
    async answerQuestion(runId, questionId, answer) {
      await client.answerQuestion(runId, questionId, answer);
    },
    async cancelRun(runId) {
      await client.cancelRun(runId);
    },
  };
}
