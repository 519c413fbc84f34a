import type { TurnContext } from '../context.js';
import { nonZero } from '../parts.js';
import type { StageResult } from '../stage.js';

/** post-turn: the turn's usage (sub-agents included), then the plugins' afterTurn markers. */
export async function postTurn(ctx: TurnContext): Promise<StageResult> {
  const { price, spend, settings } = ctx;
  // With a price for the model, the turn's cost is there even when it is 0 (no usage reported). The
  // totals include what the turn's sub-agents spent.
  const cost = price ? (spend.cost ?? { amount: 0, currency: price.currency ?? 'USD' }) : undefined;
  ctx.emit({
    rt: 'usage',
    usage: { scope: 'turn', ...nonZero(spend.tokens), ...(cost ? { cost } : {}), model: settings.model },
  });
  for (const p of ctx.deps.plugins) {
    try {
      const markers = (await p.afterTurn?.({ ...ctx.pctx, answer: ctx.answer })) ?? [];
      for (const marker of markers)
        ctx.emit({ rt: 'marker', marker: { ...marker, source: marker.source ?? p.name } });
    } catch (err) {
      ctx.emit({
        rt: 'warning',
        code: 'plugin_failed',
        message: `plugin ${p.name} failed in afterTurn: ${(err as Error).message}`,
      });
    }
  }
  return 'ok';
}
