import type { ConversationMessage } from '@agentlane/contract';
import { budgetHit, type LimitHit } from '../../budget.js';
import { audit } from '../audit.js';
import type { TurnContext } from '../context.js';
import { type ModelCallResult, modelCall, type ToolCall } from '../model-call.js';
import { advancePlan, planSystem } from '../plan.js';
import { systemFor } from '../plugins.js';
import { runTool } from '../run-tool.js';
import type { StageResult } from '../stage.js';

/** Said before the loop when a cost budget is set for a model the price table does not name. */
export function warnUnpricedBudget(ctx: TurnContext): void {
  const budget = ctx.deps.budget ?? {};
  if (budget.cost !== undefined && !ctx.price)
    ctx.emit({
      rt: 'warning',
      code: 'cost_budget_unpriced',
      message: `turnCostBudget is not enforced: the price table has no price for ${ctx.settings.model}`,
      detail: { model: ctx.settings.model, limit: budget.cost },
    });
}

/**
 * tool-loop: model steps with tools until one answers without calling any, or a limit (maxSteps, the turn's
 * budget) stops the loop; then the answer is synthesized (ctx.synthesisStep).
 */
export async function toolLoop(ctx: TurnContext): Promise<StageResult> {
  const { deps } = ctx;
  const system = await systemFor(ctx, 'tool-loop', planSystem(deps.systemPrompt, ctx.plan));
  for (let step = 1; ; step++) {
    const hit = limitHit(ctx, step);
    if (hit) {
      ctx.emit({ rt: 'warning', ...hit });
      ctx.synthesisStep = step;
      return 'ok';
    }
    const out = await modelCall(ctx, 'tool-loop', step, system, true);
    const parts: ConversationMessage['parts'] = [];
    if (out.text) parts.push({ type: 'text', text: out.text });
    for (const c of out.toolCalls) parts.push({ type: 'tool-call', ...c });
    if (parts.length > 0)
      ctx.conversation.push({ id: `${ctx.turn.turnId}:a${step}`, role: 'assistant', parts });
    if (out.status === 'cancelled') return 'cancelled';
    if (out.status === 'error') return { error: `the model call failed: ${out.error}` };
    if (out.toolCalls.length === 0) {
      ctx.answer = out.text;
      return 'ok';
    }
    if ((await runToolCalls(ctx, out, step)) === 'cancelled') return 'cancelled';
    ctx.plan = advancePlan(ctx.plan);
    if (ctx.plan.length > 0) ctx.emit({ rt: 'plan', entries: ctx.plan });
  }
}

function limitHit(ctx: TurnContext, step: number): LimitHit | null {
  const { maxSteps } = ctx.deps;
  if (step > maxSteps)
    return {
      code: 'step_limit',
      message: `the tool loop stopped after ${maxSteps} model steps (maxSteps); the answer is synthesized from what was done`,
      detail: { limit: maxSteps, spent: maxSteps },
    };
  return budgetHit(ctx.deps.budget ?? {}, ctx.spend, ctx.price !== undefined);
}

/**
 * The step's tool calls one after the other; their results become the step's tool message. Past
 * maxToolCallsPerStep the calls are not run: each is answered as refused (3000 calls in one message ran for a
 * minute, one after the other).
 */
async function runToolCalls(
  ctx: TurnContext,
  out: ModelCallResult,
  step: number,
): Promise<'ok' | 'cancelled'> {
  const cap = ctx.output.bounds.maxToolCallsPerStep;
  const calls = out.toolCalls;
  if (calls.length > cap)
    ctx.emit({
      rt: 'warning',
      code: 'tool_call_limit',
      message: `the model asked for ${calls.length} tool calls in one step: the ${calls.length - cap} past maxToolCallsPerStep (${cap}) were not run`,
      detail: { limit: cap, calls: calls.length },
    });
  const results: ConversationMessage['parts'] = [];
  for (const call of calls.slice(0, cap)) {
    const r = await runTool(ctx, call, out.approvalRequests.get(call.toolCallId));
    results.push({
      type: 'tool-result',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: r.output,
      isError: r.isError,
    });
    if (r.status === 'cancelled') {
      ctx.conversation.push({ id: `${ctx.turn.turnId}:t${step}`, role: 'tool', parts: results });
      return 'cancelled';
    }
  }
  for (const call of calls.slice(cap)) results.push(refuse(ctx, call, cap));
  ctx.conversation.push({ id: `${ctx.turn.turnId}:t${step}`, role: 'tool', parts: results });
  return 'ok';
}

/** A call past maxToolCallsPerStep: started and failed without running (its events and ledger row say so). */
function refuse(ctx: TurnContext, call: ToolCall, cap: number): ConversationMessage['parts'][number] {
  const error = `not run: too many tool calls in one step (maxToolCallsPerStep ${cap})`;
  const kind = ctx.toolsByName.get(call.toolName)?.kind ?? 'other';
  ctx.emit({ rt: 'tool.start', toolCallId: call.toolCallId, name: call.toolName, kind, input: call.input });
  ctx.emit({ rt: 'tool.end', toolCallId: call.toolCallId, status: 'failed', error, durationMs: 0 });
  audit(ctx, 'tool-loop', 'tool', 'error', 0, {
    kind: 'tool_call',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.input,
    error,
  });
  return {
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: error,
    isError: true,
  };
}
