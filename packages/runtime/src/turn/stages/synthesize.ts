import type { TurnContext } from '../context.js';
import { modelCall } from '../model-call.js';
import { systemFor } from '../plugins.js';
import type { StageResult } from '../stage.js';

/**
 * synthesize: the loop's last text is the answer; a loop stopped by a limit gets one call without tools. The
 * plan's entries end completed.
 */
export async function synthesize(ctx: TurnContext): Promise<StageResult> {
  if (ctx.synthesisStep > 0) {
    const system = await systemFor(
      ctx,
      'synthesize',
      'Answer the user now from what was done so far. Do not call tools.',
    );
    const out = await modelCall(ctx, 'synthesize', ctx.synthesisStep, system, false);
    if (out.status === 'cancelled') return 'cancelled';
    if (out.status === 'error') return { error: `the synthesis call failed: ${out.error}` };
    ctx.answer = out.text;
    if (out.text)
      ctx.conversation.push({
        id: `${ctx.turn.turnId}:answer`,
        role: 'assistant',
        parts: [{ type: 'text', text: out.text }],
      });
  }
  if (ctx.plan.length > 0) {
    ctx.plan = ctx.plan.map((e) => ({ ...e, status: e.status === 'cancelled' ? e.status : 'completed' }));
    ctx.emit({ rt: 'plan', entries: ctx.plan });
  }
  return 'ok';
}
