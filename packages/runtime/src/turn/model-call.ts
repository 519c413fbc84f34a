import type { AuditStatus, JsonObject, JsonValue, StageId } from '@agentlane/contract';
import { jsonSchema, type ModelMessage, streamText, type ToolSet, tool } from 'ai';
import { sdkNeedsApproval, withApprovalParts } from '../approvals.js';
import { jsonSafe, toModelMessages } from '../conversation.js';
import { DeltaCoalescer } from '../delta-coalescer.js';
import { nextSlice, sliceSpent } from '../loop-slice.js';
import { authMethodOf, type HttpObservation } from '../model.js';
import { costOf } from '../prices.js';
import { addSpend } from '../spend.js';
import { withUniqueCallId } from '../tool-call-ids.js';
import { audit, PREVIEW } from './audit.js';
import type { TurnContext } from './context.js';
import { errorText, numbers, partText, safePart } from './parts.js';

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
  text: string;
  toolCalls: ToolCall[];
  approvalRequests: Map<string, string>;
  finishReason: string | null;
  usage: JsonObject;
}

type CallRequest = { messageCount: number; toolNames: string[]; promptPreview?: string };

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

/** The call's stream, read to its end: each part emitted (deltas coalesced), the step's results collected. */
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
    text: '',
    toolCalls: [],
    approvalRequests: new Map(),
    finishReason: null,
    usage: {},
  };
  const callText = ctx.output.text.call(`${ctx.deps.scope ?? ''}${ctx.turn.turnId}-${stage}-${step}`);
  const deltas = new DeltaCoalescer(ctx.emit, ctx.deps.coalesceDeltas !== false);
  try {
    const result = streamText({
      model: ctx.model,
      system,
      messages,
      ...(withTools ? { tools: sdkTools(ctx) } : {}),
      abortSignal: ctx.io.signal,
      maxRetries: 0,
      onError: ({ error }) => {
        out.error = error;
      },
    });
    ctx.callIds.startCall();
    for await (const sdkPart of result.fullStream) {
      // The SDK's own pipeline may run far ahead of the network slices (model-fetch.ts): the consumer
      // also lets the event loop in every few ms.
      if (sliceSpent()) await nextSlice();
      const part = callText.pass(withUniqueCallId(sdkPart, ctx.callIds));
      // Text past the turn's bound goes to the call's overflow file: read on once the file caught up.
      if (callText.busy()) await callText.drained();
      if (part === null) continue;
      const safe = safePart(part as unknown as Record<string, unknown>);
      // A step's cost rides on its finish-step frame (the translator makes it the step's usage.updated).
      const cost =
        part.type === 'finish-step' ? costOf(ctx.price, numbers(safe.usage as JsonObject)) : undefined;
      if (stage !== 'anchor-plan') deltas.part(stage, step, safe, cost);
      if (part.type === 'text-delta') out.text += part.text;
      else if (part.type === 'tool-call')
        out.toolCalls.push({
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: jsonSafe(part.input),
        });
      else if (part.type === 'tool-approval-request')
        out.approvalRequests.set(part.toolCall.toolCallId, part.approvalId);
      else if (part.type === 'finish-step') {
        out.finishReason = part.finishReason;
        out.usage = safe.usage as JsonObject;
      } else if (part.type === 'error') out.error = part.error;
    }
  } catch (err) {
    out.error = err;
  } finally {
    deltas.flush();
  }
  for (const { kind, spilled } of await callText.close())
    ctx.emit({
      rt: 'artifact',
      name: `${kind === 'text' ? 'answer' : 'reasoning'} past turnTextBytes (${stage}, step ${step})`,
      contentType: 'text/plain; charset=utf-8',
      file: spilled,
    });
  return out;
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
      ...(s.error && !cancelled ? { error: errorText(s.error) } : {}),
    },
    { finish_reason: cancelled ? 'cancelled' : s.finishReason, http_status: obs?.status ?? null },
  );
  return {
    status,
    text: s.text,
    toolCalls: s.toolCalls,
    approvalRequests: s.approvalRequests,
    error: s.error ? errorText(s.error) : undefined,
  };
}
