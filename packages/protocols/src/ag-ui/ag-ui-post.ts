import type { Message, RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { guardInput, HttpError, type Principal, type ServerContext } from '@agentlane/server';
import type { RunRecord, ThreadRecord } from '@agentlane/store';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { newestActiveRun } from '../active-run.js';
import { assertPromptLength, protocolThread } from '../protocol-thread.js';
import { readRunRows } from '../run-rows.js';
import { holdStreamSlot, type StreamRegistry } from '../sse-out.js';
import { reconnectedRun } from './ag-ui-reconnect.js';
import { answerResume } from './ag-ui-resume.js';
import { AG_UI_RUN_OPTION, AG_UI_USER_MESSAGE_OPTION, streamRunAsAgUi } from './ag-ui-stream.js';
import { parseEventId, type StreamPosition } from './event-id.js';

export interface AgUiOptions {
  /** The engine of a thread id seen for the first time without `forwardedProps.engine`; else the only one. */
  defaultEngine?: string;
}

export interface AgUiDeps {
  ctx: ServerContext;
  registry: StreamRegistry;
  options: AgUiOptions;
}

const THREAD_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

function bad(message: string, field: string): HttpError {
  return new HttpError('invalid_request', message, field);
}

/**
 * `POST /protocols/ag-ui`: a last user message starts a run (the AG-UI runId is the idempotency key),
 * `resume` answers the interrupts of a paused run and continues it, and neither follows the thread's active
 * run; the reply is that run as an AG-UI event stream.
 */
export async function handleAgUiPost(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AgUiDeps,
): Promise<FastifyReply> {
  const { ctx, registry } = deps;
  const input = parseInput(request.body);
  holdStreamSlot(ctx, reply);
  const reconnect = parseEventId(request.headers['last-event-id'] as string | undefined);
  const thread = await threadFor(deps, request.principal, input, reconnect);
  let stream: { run: RunRecord | null; snapshotAt: number };
  if (reconnect) {
    await assertWithinThread(ctx, thread.threadId, reconnect);
    const prompted = userText(input.messages.at(-1)) !== undefined;
    const run = await reconnectedRun(ctx, request.principal, { thread, input, prompted, at: reconnect });
    stream = { run, snapshotAt: reconnect.snapshotAt };
  } else {
    stream = await runFor(ctx, request.principal, thread, input);
  }
  await streamRunAsAgUi(ctx, registry, reply, {
    threadId: input.threadId,
    runId: input.runId,
    agentlaneThreadId: thread.threadId,
    ...stream,
    ...(reconnect ? { resumeAfter: reconnect } : {}),
  });
  return reply;
}

/** The body checked with AG-UI's own schema; the first issue is the error, with its path as the field. */
function parseInput(body: unknown): RunAgentInput {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('') ?? '';
    throw bad(`${path.replace(/^\./, '') || 'body'}: ${issue?.message ?? 'invalid'}`, `body${path}`);
  }
  const input = parsed.data as RunAgentInput;
  if (!THREAD_ID.test(input.threadId))
    throw bad('threadId must be 1-128 letters, digits or _.:-', 'body.threadId');
  // The runId is the run's idempotency key: an empty one, or one past what a key may hold, names no run.
  if (input.runId.trim() === '' || input.runId.length > MAX_RUN_ID)
    throw bad(`runId must be 1-${MAX_RUN_ID} characters`, 'body.runId');
  return input;
}

const MAX_RUN_ID = 200;

/** A Last-Event-ID past the thread's last row is no frame this server sent on it. */
async function assertWithinThread(
  ctx: ServerContext,
  threadId: string,
  at: { snapshotAt: number; row: number },
): Promise<void> {
  const head = await ctx.store.headDeliverySeq(threadId);
  if (at.snapshotAt > head || at.row > head)
    throw bad(
      `Last-Event-ID names row ${Math.max(at.snapshotAt, at.row)}, past this thread's last row ${head}`,
      'headers.last-event-id',
    );
}

/** The AG-UI threadId is the agentlane thread; a new one runs on `forwardedProps.engine`. */
function threadFor(
  deps: AgUiDeps,
  principal: Principal,
  input: RunAgentInput,
  reconnect: StreamPosition | undefined,
): Promise<ThreadRecord> {
  return protocolThread(deps.ctx, principal, {
    threadId: input.threadId,
    engine: () => {
      assertStartsTurn(input, reconnect);
      return namedEngine(input);
    },
    named: namedEngine(input),
    defaultEngine: deps.options.defaultEngine,
    noun: 'thread',
    field: 'body.forwardedProps',
  });
}

/**
 * A thread that does not exist yet has no run to follow, resume or reconnect to: its first request must start
 * a turn, with a last user message holding text (AG-UI runs on the input's messages; agentlane takes the last
 * user message as the prompt). Refused before the thread is created.
 */
function assertStartsTurn(input: RunAgentInput, reconnect: StreamPosition | undefined): void {
  if (reconnect)
    throw bad('Last-Event-ID names a frame of a thread that does not exist', 'headers.last-event-id');
  const last = input.messages.at(-1);
  if (userText(last) !== undefined) return;
  const found = !last
    ? 'messages is empty'
    : last.role === 'user'
      ? 'the last user message has no text'
      : `the last message has role "${last.role}"`;
  throw bad(
    `a new thread starts with a turn: the last message must be a user message with text (${found})`,
    'body.messages',
  );
}

function namedEngine(input: RunAgentInput): string | undefined {
  const named = (input.forwardedProps as { engine?: unknown } | undefined)?.engine;
  if (named !== undefined && typeof named !== 'string')
    throw bad('forwardedProps.engine must be a string', 'body.forwardedProps.engine');
  return named;
}

/** The run the request streams, and the row its stream's snapshot is taken at. */
async function runFor(
  ctx: ServerContext,
  principal: Principal,
  thread: ThreadRecord,
  input: RunAgentInput,
): Promise<{ run: RunRecord | null; snapshotAt: number }> {
  const { store, lane } = ctx;
  const head = await store.headDeliverySeq(thread.threadId);
  // The route takes the body's text unchecked (GUARDS_OWN_TEXT): only what it keeps is checked.
  if (input.resume && input.resume.length > 0) {
    guardInput('body.resume', input.resume);
    return { run: await answerResume(ctx, principal, thread.threadId, input.resume), snapshotAt: head };
  }
  const last = input.messages[input.messages.length - 1];
  const prompt = userText(last);
  if (prompt !== undefined) {
    assertPromptLength(prompt, `body.messages[${input.messages.length - 1}].content`);
    guardInput(`body.messages[${input.messages.length - 1}].content`, prompt);
    const created = await lane.createRun({
      threadId: thread.threadId,
      prompt,
      options: {
        // The client's runId names the run for a reconnect (Last-Event-ID) to check against.
        [AG_UI_RUN_OPTION]: input.runId,
        // The client's id of its user message, so a MESSAGES_SNAPSHOT names it as the client does.
        ...(last && last.id.length <= MAX_MESSAGE_ID ? { [AG_UI_USER_MESSAGE_OPTION]: last.id } : {}),
      },
      // The client's runId names a run within its thread only: another thread may reuse it.
      idempotencyKey: `ag-ui:${thread.threadId}:${input.runId}`,
    });
    return { run: created.run, snapshotAt: created.created ? head : await beforeRun(ctx, created.run) };
  }
  return { run: (await newestActiveRun(store, thread.threadId)) ?? null, snapshotAt: head };
}

/** Longer client message ids are not kept (the snapshot then names the message `user-<runId>`). */
const MAX_MESSAGE_ID = 200;

function userText(message: Message | undefined): string | undefined {
  if (message?.role !== 'user') return undefined;
  const { content } = message;
  const text =
    typeof content === 'string'
      ? content
      : content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
  return text.trim() === '' ? undefined : text;
}

/** Where a stream of a run that existed before this request starts: just before its first row. */
async function beforeRun(ctx: ServerContext, run: RunRecord): Promise<number> {
  const rows = await readRunRows(ctx.store, run.threadId, run.runId);
  return rows.length > 0 ? (rows[0]?.deliverySeq ?? 1) - 1 : await ctx.store.headDeliverySeq(run.threadId);
}
