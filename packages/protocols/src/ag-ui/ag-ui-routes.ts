import type { Message, ResumeEntry, RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { ApprovalRequestedPayload, QuestionRequestedPayload } from '@agentlane/contract';
import {
  assertAllThreads,
  assertThreadAccess,
  createThreadSession,
  HttpError,
  type Principal,
  type ServerContext,
} from '@agentlane/server';
import type { RunRecord } from '@agentlane/store';
import type { FastifyPluginAsync } from 'fastify';
import { readRunRows } from '../run-rows.js';
import type { StreamRegistry } from '../sse-out.js';
import { streamRunAsAgUi } from './ag-ui-stream.js';
import { parseEventId } from './event-id.js';

export interface AgUiOptions {
  /** The engine of a thread id seen for the first time without `forwardedProps.engine`; else the only one. */
  defaultEngine?: string;
}

export const AG_UI_PATH = '/protocols/ag-ui';

const THREAD_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const ACTIVE = new Set(['queued', 'running']);

type Asked =
  | { kind: 'approval'; runId: string; payload: ApprovalRequestedPayload }
  | { kind: 'question'; runId: string; payload: QuestionRequestedPayload };

function bad(message: string, field: string): HttpError {
  return new HttpError('invalid_request', message, field);
}

function userText(message: Message | undefined): string | undefined {
  if (message?.role !== 'user') return undefined;
  const { content } = message;
  const text =
    typeof content === 'string'
      ? content
      : content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
  return text.trim() === '' ? undefined : text;
}

/**
 * AG-UI over the canonical lane: `POST /protocols/ag-ui` takes a RunAgentInput (checked with AG-UI's own
 * schema). A last user message starts a run (its text is the prompt; the AG-UI runId is the idempotency key),
 * `resume` answers the interrupts of a paused run and continues it, and neither follows the thread's active
 * run. The AG-UI threadId is the agentlane thread.
 */
export const agUiRoutes =
  (options: AgUiOptions, registry: StreamRegistry) =>
  (ctx: ServerContext): FastifyPluginAsync =>
  async (app) => {
    const { store, lane } = ctx;

    const threadFor = async (principal: Principal, input: RunAgentInput) => {
      const existing = await store.getThread(input.threadId);
      if (existing) {
        assertThreadAccess(principal, existing.threadId);
        return existing;
      }
      assertAllThreads(principal, 'starting a thread');
      const engines = ctx.engines.list();
      const named = (input.forwardedProps as { engine?: unknown } | undefined)?.engine;
      if (named !== undefined && typeof named !== 'string')
        throw bad('forwardedProps.engine must be a string', 'body.forwardedProps.engine');
      const engine = named ?? options.defaultEngine ?? (engines.length === 1 ? engines[0]?.name : undefined);
      if (!engine) {
        const known = engines.map((e) => e.name).join(', ') || 'none';
        throw bad(`a new thread needs an engine (configured: ${known})`, 'body.forwardedProps.engine');
      }
      return (await createThreadSession(ctx, { threadId: input.threadId, engine }, 'body.forwardedProps'))
        .thread;
    };

    const askedOf = async (threadId: string): Promise<Map<string, Asked>> => {
      const asked = new Map<string, Asked>();
      for (const row of await store.latestEvents({ threadId })) {
        const e = row.event;
        if (e.kind === 'approval.requested')
          asked.set(e.payload.approvalId, { kind: 'approval', runId: e.runId, payload: e.payload });
        if (e.kind === 'question.requested')
          asked.set(e.payload.questionId, { kind: 'question', runId: e.runId, payload: e.payload });
      }
      return asked;
    };

    /** Resume entries → answers through the lane (an identical repeat is a no-op). Returns the run. */
    const answer = async (principal: Principal, threadId: string, resume: ResumeEntry[]) => {
      const asked = await askedOf(threadId);
      let runId: string | undefined;
      for (const [i, entry] of resume.entries()) {
        const target = asked.get(entry.interruptId);
        const field = `body.resume[${i}]`;
        if (!target) throw bad(`no interrupt ${entry.interruptId} in this thread`, `${field}.interruptId`);
        runId ??= target.runId;
        const payload = (entry.payload ?? {}) as {
          optionId?: unknown;
          approved?: unknown;
          choiceIds?: unknown;
          text?: unknown;
        };
        const answeredBy = principal.name;
        if (target.kind === 'approval') {
          const options = target.payload.options;
          const chosen =
            typeof payload.optionId === 'string'
              ? options.find((o) => o.optionId === payload.optionId)
              : typeof payload.approved === 'boolean'
                ? (payload.approved ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'])
                    .map((kind) => options.find((o) => o.kind === kind))
                    .find((o) => o !== undefined)
                : undefined;
          if (entry.status === 'resolved' && !chosen)
            throw bad('payload must be {optionId} of the request or {approved: boolean}', `${field}.payload`);
          await lane.answerApproval({
            runId: target.runId,
            approvalId: entry.interruptId,
            answer:
              entry.status === 'resolved' && chosen
                ? { outcome: 'selected', optionId: chosen.optionId, answeredBy }
                : { outcome: 'cancelled', answeredBy },
          });
        } else {
          const choiceIds = Array.isArray(payload.choiceIds)
            ? payload.choiceIds.filter((c): c is string => typeof c === 'string')
            : [];
          const text = typeof payload.text === 'string' ? payload.text : undefined;
          await lane.answerQuestion({
            runId: target.runId,
            questionId: entry.interruptId,
            answer:
              entry.status === 'resolved'
                ? { outcome: 'answered', choiceIds, ...(text !== undefined ? { text } : {}), answeredBy }
                : { outcome: 'cancelled', answeredBy },
          });
        }
      }
      return runId ? await store.getRun(runId) : null;
    };

    /** Where a stream of a run that existed before this request starts: just before its first row. */
    const beforeRun = async (run: RunRecord): Promise<number> => {
      const rows = await readRunRows(store, run.threadId, run.runId);
      return rows.length > 0 ? (rows[0]?.deliverySeq ?? 1) - 1 : await store.headDeliverySeq(run.threadId);
    };

    app.post(AG_UI_PATH, { schema: { hide: true } }, async (request, reply) => {
      const parsed = RunAgentInputSchema.safeParse(request.body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const path =
          issue?.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('') ?? '';
        throw bad(`${path.replace(/^\./, '') || 'body'}: ${issue?.message ?? 'invalid'}`, `body${path}`);
      }
      const input = parsed.data as RunAgentInput;
      if (!THREAD_ID.test(input.threadId))
        throw bad('threadId must be 1-128 letters, digits or _.:-', 'body.threadId');
      const reconnect = parseEventId(request.headers['last-event-id'] as string | undefined);
      const thread = await threadFor(request.principal, input);
      const head = await store.headDeliverySeq(thread.threadId);
      let run: RunRecord | null = null;
      let snapshotAt = head;
      const prompt = userText(input.messages[input.messages.length - 1]);
      if (input.resume && input.resume.length > 0) {
        run = await answer(request.principal, thread.threadId, input.resume);
      } else if (prompt !== undefined) {
        const created = await lane.createRun({
          threadId: thread.threadId,
          prompt,
          idempotencyKey: `ag-ui:${input.runId}`,
        });
        run = created.run;
        if (!created.created) snapshotAt = await beforeRun(run);
      } else {
        run = (await store.listRuns(thread.threadId)).filter((r) => ACTIVE.has(r.status)).pop() ?? null;
      }
      await streamRunAsAgUi(ctx, registry, reply, {
        threadId: input.threadId,
        runId: input.runId,
        agentlaneThreadId: thread.threadId,
        run,
        snapshotAt: reconnect?.snapshotAt ?? snapshotAt,
        ...(reconnect ? { resumeAfter: reconnect } : {}),
      });
      return reply;
    });
  };
