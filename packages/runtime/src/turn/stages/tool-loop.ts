import type { ConversationMessage } from '@agentlane/contract';
import { budgetHit, type LimitHit } from '../../budget.js';
import type { TurnContext } from '../context.js';
import { type ModelCallResult, modelCall } from '../model-call.js';
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

/** The step's tool calls one after the other; their results become the step's tool message. */
async function runToolCalls(
  ctx: TurnContext,
  out: ModelCallResult,
  step: number,
): Promise<'ok' | 'cancelled'> {
  const results: ConversationMessage['parts'] = [];
  for (const call of out.toolCalls) {
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
  ctx.conversation.push({ id: `${ctx.turn.turnId}:t${step}`, role: 'tool', parts: results });
  return 'ok';
}
