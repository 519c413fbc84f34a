import {
  type AuditStatus,
  type JsonObject,
  type JsonValue,
  MAX_PREVIEW_CHARS,
  type StageId,
} from '@agentlane/contract';
import { jsonSchema, type ModelMessage, streamText, type TextStreamPart, type ToolSet, tool } from 'ai';
import { sdkNeedsApproval, withApprovalParts } from '../approvals.js';
import { toModelMessages } from '../conversation.js';
import { DeltaCoalescer } from '../delta-coalescer.js';
import type { DeltaRedaction } from '../delta-redaction.js';
import { nextSlice, sliceSpent } from '../loop-slice.js';
import { authMethodOf, type HttpObservation } from '../model.js';
import { CallToolInputBound } from '../output-bound.js';
import { costOf } from '../prices.js';
import { Redactor } from '../redact.js';
import { addSpend } from '../spend.js';
import { ModelStreamUnbounded } from '../sse-guard.js';
import { withUniqueCallId } from '../tool-call-ids.js';
import { audit, PREVIEW } from './audit.js';
import type { TurnContext } from './context.js';
import { errorText, numbers, partText, safePart } from './parts.js';
import { StreamFlow } from './stream-flow.js';

export interface ToolCall {
  toolCallId: string;
  toolName: string;
  input: JsonValue;
}

/** What one model call produced. */
export interface ModelCallResult {
  status: AuditStatus;
  text: string;
  toolCalls: ToolCall[];
  /** The SDK's tool-approval-request parts: tool call id → the SDK's approval id. */
  approvalRequests: Map<string, string>;
  error: string | undefined;
}

/** What the stream of one call showed, as it was read. */
interface Streamed {
  error: unknown;
  /** The call's error went out already: an error part (the translator's harness.warning) or a warning. */
  errorShown: boolean;
  text: string;
  toolCalls: ToolCall[];
  approvalRequests: Map<string, string>;
  finishReason: string | null;
  usage: JsonObject;
}

type CallRequest = { messageCount: number; toolNames: string[]; promptPreview?: string };

/** A bound on what the model streams stopped the call (the turn fails with this error). */
export class ModelOutputLimit extends Error {}

/** The model's text passed turnTextBytes and turnTextOverflowBytes: the call was stopped. */
export class ModelTextLimit extends ModelOutputLimit {
  override name = 'ModelTextLimit';
}

/** The tool-call input the call streamed passed toolInputBytes: the call was stopped. */
export class ModelToolInputLimit extends ModelOutputLimit {
  override name = 'ModelToolInputLimit';
}

/** What one call's stream is read with. */
interface Reading {
  ctx: TurnContext;
  stage: StageId;
  step: number;
  out: Streamed;
  deltas: DeltaCoalescer;
  redact: Redactor;
  /** The call's text, reasoning and tool-input deltas, redacted across pieces. */
  streams: DeltaRedaction;
}

/** One streamed model call; every stream part is emitted; returns what the step produced. */
export async function modelCall(
  ctx: TurnContext,
  stage: StageId,
  step: number,
  system: string,
  withTools: boolean,
): Promise<ModelCallResult> {
  const started = performance.now();
  ctx.observed.last = null;
  const messages = withApprovalParts(toModelMessages(ctx.conversation), ctx.answered);
  ctx.answered = [];
  const last = [...ctx.conversation].reverse().find((m) => m.role === 'user');
  const request: CallRequest = {
    messageCount: messages.length,
    toolNames: withTools ? ctx.tools.map((t) => t.name) : [],
    ...(last ? { promptPreview: partText(last).slice(0, PREVIEW) } : {}),
  };
  // What the call's ledger row needs if the process dies before the call ends (see cutoff-rows.ts).
  ctx.emit({
    rt: 'model.start',
    sessionId: ctx.deps.threadId,
    turnId: ctx.turn.turnId,
    stage,
    step,
    provider: ctx.settings.api,
    model: ctx.settings.model,
    transport: ctx.settings.api,
    authMethod: authMethodOf(ctx.settings),
    request,
  });
  const streamed = await stream(ctx, stage, step, system, messages, withTools);
  return finish(ctx, stage, started, request, streamed);
}

/**
 * The call's stream, read to its end: each part emitted (deltas coalesced, the engine's secrets redacted), the
 * step's results collected. The call is stopped when the turn's text passes its bound and its overflow bound.
 */
async function stream(
  ctx: TurnContext,
  stage: StageId,
  step: number,
  system: string,
  messages: ModelMessage[],
  withTools: boolean,
): Promise<Streamed> {
  const out: Streamed = {
    error: null,
    errorShown: false,
    text: '',
    toolCalls: [],
    approvalRequests: new Map(),
    finishReason: null,
    usage: {},
  };
  const callText = ctx.output.text.call(
    `${ctx.deps.scope ?? ''}${ctx.turn.turnId}-${stage}-${step}`,
    ctx.output.bounds.turnTextOverflowBytes,
  );
  const toolInput = new CallToolInputBound(ctx.output.bounds.toolInputBytes);
  const redact = new Redactor([...ctx.secrets]);
  const r: Reading = {
    ctx,
    stage,
    step,
    out,
    deltas: new DeltaCoalescer(ctx.emit, ctx.deps.coalesceDeltas !== false),
    redact,
    streams: redact.deltas(),
  };
  const stop = new AbortController();
  // The SDK reads the provider's stream eagerly: the flow holds it to the pace of this loop (stream-flow.ts).
  const flow = new StreamFlow(ctx.deps.coalesceDeltas !== false);
  try {
    const result = streamText({
      model: flow.model(ctx.model),
      system,
      messages,
      ...(withTools ? { tools: sdkTools(ctx) } : {}),
      abortSignal: AbortSignal.any([ctx.io.signal, stop.signal]),
      maxRetries: 0,
      onError: ({ error }) => {
        out.error = error;
      },
    });
    ctx.callIds.startCall();
    for await (const sdkPart of result.fullStream) {
      flow.took(sdkPart);
      // The SDK's own pipeline may run far ahead of the network slices (model-fetch.ts): the consumer
      // also lets the event loop in every few ms.
      if (sliceSpent()) await nextSlice();
      // The provider and the SDK hold a call's tool input whole: an endless one is stopped, not read on.
      if (!toolInput.take(sdkPart)) {
        toolInputLimit(r, toolInput.bound);
        stop.abort(out.error);
        break;
      }
      // Text past the turn's bound goes to the call's overflow file (redacted first: the file is an artifact).
      // A delta may hold back a tail that starts a secret (DeltaRedaction): it goes out with a later part.
      for (const redacted of r.streams.parts(withUniqueCallId(sdkPart, ctx.callIds))) {
        const part = callText.pass(redacted);
        if (part !== null) take(r, part);
      }
      if (callText.overflowed()) {
        // The SDK keeps the whole text of a call in memory: an endless answer is stopped, not read on.
        textLimit(r);
        stop.abort(out.error);
        break;
      }
      // Read on once the overflow file caught up.
      if (callText.busy()) await callText.drained();
    }
  } catch (err) {
    if (!(out.error instanceof ModelOutputLimit)) out.error = err;
  } finally {
    flow.release();
    // A stream cut short of its blocks' ends: their held tails (starts of a secret that never came) go out.
    if (!stop.signal.aborted)
      for (const held of r.streams.rest()) {
        const part = callText.pass(held as TextStreamPart<ToolSet>);
        if (part !== null) take(r, part);
      }
    r.deltas.flush();
  }
  // A call that failed without an error part (a stall mid-stream ends the SDK's stream without one) still
  // says so as the stream's error, like one that failed before its first byte.
  if (out.error && !out.errorShown && !ctx.io.signal.aborted)
    ctx.emit({ rt: 'part', stage, step, part: { type: 'error', message: callError(r.redact, out.error) } });
  for (const { kind, spilled } of await callText.close())
    ctx.emit({
      rt: 'artifact',
      name: `${kind === 'text' ? 'answer' : 'reasoning'} past turnTextBytes (${stage}, step ${step})`,
      contentType: 'text/plain; charset=utf-8',
      file: spilled,
    });
  return out;
}

/** One stream part (its text already bounded): emitted JSON-safe and redacted, and noted in the call's result. */
function take(r: Reading, part: TextStreamPart<ToolSet>): void {
  const { ctx, stage, step, out } = r;
  const safe = r.redact.part(safePart(part as unknown as Record<string, unknown>));
  if (part.type === 'error') {
    safe.message = callError(r.redact, part.error);
    out.error = part.error;
    out.errorShown = true;
  }
  // A step's cost rides on its finish-step frame (the translator makes it the step's usage.updated).
  const cost = part.type === 'finish-step' ? costOf(ctx.price, numbers(safe.usage as JsonObject)) : undefined;
  // The planning call's text is not shown (its entries are), but its failure is, as any call's.
  if (stage !== 'anchor-plan' || part.type === 'error') r.deltas.part(stage, step, safe, cost);
  if (part.type === 'text-delta') out.text += safe.text as string;
  else if (part.type === 'tool-call')
    out.toolCalls.push({
      toolCallId: part.toolCallId,
      // As the events show it: a name the model made up may carry a secret it echoed (the conversation is
      // checkpointed). The id is clean already (ToolCallIds).
      toolName: typeof safe.toolName === 'string' ? safe.toolName : part.toolName,
      input: safe.input ?? null,
    });
  else if (part.type === 'tool-approval-request')
    out.approvalRequests.set(part.toolCall.toolCallId, part.approvalId);
  else if (part.type === 'finish-step') {
    out.finishReason = part.finishReason;
    out.usage = safe.usage as JsonObject;
  }
}

/** The turn's text passed its bound and its overflow bound: the call is stopped. */
function textLimit(r: Reading): void {
  const { turnTextBytes, turnTextOverflowBytes } = r.ctx.output.bounds;
  const total = turnTextBytes + turnTextOverflowBytes;
  const message = `the model's answer passed ${total} bytes (turnTextBytes ${turnTextBytes} + turnTextOverflowBytes ${turnTextOverflowBytes}): the call was stopped`;
  limitStop(r, new ModelTextLimit(message), 'model_text_limit', total);
}

/** The call's tool-call input passed toolInputBytes: the call is stopped. */
function toolInputLimit(r: Reading, bound: number): void {
  const message = `the model's tool-call input passed ${bound} bytes (toolInputBytes): the call was stopped`;
  limitStop(r, new ModelToolInputLimit(message), 'model_tool_input_limit', bound);
}

/** A bound stopped the call: its error, said once as a harness.warning of `code` (the error part is not sent). */
function limitStop(r: Reading, error: ModelOutputLimit, code: string, limit: number): void {
  r.out.error = error;
  r.out.errorShown = true;
  r.deltas.flush();
  r.ctx.emit({ rt: 'warning', code, message: error.message, detail: { limit } });
}

/**
 * A model call's error as it leaves the runtime (the run's error, the ledger row, the error part): the
 * engine's own stream errors say what happened, and the secrets are redacted.
 */
function callError(redact: Redactor, err: unknown): string {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof ModelStreamUnbounded) return cappedError(redact, e.message);
  return cappedError(redact, errorText(err));
}

/**
 * An error's text cut to MAX_PREVIEW_CHARS (what the translator's warning shows of it): a model server may
 * answer with a body of megabytes, which would otherwise become the run's error and its ledger row whole.
 * Redacted before it is cut, over a longer window, so a key crossing the cut is not half shown.
 */
function cappedError(redact: Redactor, text: string): string {
  if (text.length <= MAX_PREVIEW_CHARS) return redact.error(text);
  const shown = redact.error(text.slice(0, MAX_PREVIEW_CHARS * 4)).slice(0, MAX_PREVIEW_CHARS);
  return `${shown}… (${text.length - MAX_PREVIEW_CHARS} more characters)`;
}

/** The turn's tools as the SDK offers them to the model (approval decided per call, see approvals.ts). */
function sdkTools(ctx: TurnContext): ToolSet {
  const tools: ToolSet = {};
  for (const t of ctx.tools)
    tools[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema(t.inputSchema as never),
      needsApproval: sdkNeedsApproval(t, ctx.deps.workspace),
    });
  return tools;
}

/** The call's end: what it spent, its ledger row, its result. */
function finish(
  ctx: TurnContext,
  stage: StageId,
  started: number,
  request: CallRequest,
  s: Streamed,
): ModelCallResult {
  const obs = ctx.observed.last as HttpObservation | null;
  // Said once per call: the counts are unknown (the call's usage lacks them), the answer stands.
  if (obs?.usageDropped)
    ctx.emit({
      rt: 'warning',
      code: 'model_usage_invalid',
      message: `the model server reported token counts that are no count (negative, fractional or too large) in ${obs.usageDropped.events} event(s): they were dropped (${obs.usageDropped.paths.join(', ')})`,
      detail: { events: obs.usageDropped.events, fields: obs.usageDropped.paths },
    });
  const error = s.error ? callError(new Redactor([...ctx.secrets]), s.error) : undefined;
  const latency = performance.now() - started;
  const cancelled = ctx.io.signal.aborted;
  const status: AuditStatus = cancelled ? 'cancelled' : s.error ? 'error' : 'ok';
  const usageOut = numbers(s.usage);
  const callCost = Object.keys(usageOut).length > 0 ? costOf(ctx.price, usageOut) : undefined;
  addSpend(ctx.spend, usageOut, callCost);
  audit(
    ctx,
    stage,
    'model',
    status,
    latency,
    {
      kind: 'model_call',
      request,
      response: {
        ...(s.text ? { textPreview: s.text.slice(0, PREVIEW) } : {}),
        toolCalls: s.toolCalls.map(({ toolCallId, toolName }) => ({ toolCallId, toolName })),
      },
      ...(Object.keys(usageOut).length > 0
        ? {
            usage: {
              ...usageOut,
              ...(callCost ? { costAmount: callCost.amount, costCurrency: callCost.currency } : {}),
            },
          }
        : {}),
      ...(error !== undefined && !cancelled ? { error } : {}),
    },
    { finish_reason: cancelled ? 'cancelled' : s.finishReason, http_status: obs?.status ?? null },
  );
  return {
    status,
    text: s.text,
    toolCalls: s.toolCalls,
    approvalRequests: s.approvalRequests,
    error,
  };
}
