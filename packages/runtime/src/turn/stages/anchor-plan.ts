import type { TurnContext } from '../context.js';
import { modelCall } from '../model-call.js';
import { parsePlan } from '../plan.js';
import { systemFor } from '../plugins.js';
import type { StageResult } from '../stage.js';

/** anchor-plan: one call without tools drafts the turn's plan (its text is not shown, its entries are). */
export async function anchorPlan(ctx: TurnContext): Promise<StageResult> {
  const system = await systemFor(
    ctx,
    'anchor-plan',
    'Draft a short plan for the request as a numbered list, one step per line. Do not call tools and do not answer yet.',
  );
  const out = await modelCall(ctx, 'anchor-plan', 0, system, false);
  if (out.status === 'cancelled') return 'cancelled';
  if (out.status === 'error') return { error: `the planning call failed: ${out.error}` };
  ctx.plan = parsePlan(out.text);
  if (ctx.plan.length > 0) ctx.emit({ rt: 'plan', entries: ctx.plan });
  return 'ok';
}
