import type { TurnInput, TurnIO, TurnOutcome } from '@agentlane/engine-kit';
import { createTurnContext } from './context.js';
import type { TurnDeps } from './deps.js';
import { runStage, settle } from './stage.js';
import { anchorPlan } from './stages/anchor-plan.js';
import { postTurn } from './stages/post-turn.js';
import { synthesize } from './stages/synthesize.js';
import { toolLoop, warnUnpricedBudget } from './stages/tool-loop.js';

/** One turn through the stages anchor-plan → tool-loop → synthesize → post-turn, around one turn context. */
export async function runStagedTurn(deps: TurnDeps, turn: TurnInput, io: TurnIO): Promise<TurnOutcome> {
  const ctx = await createTurnContext(deps, turn, io, runStagedTurn);
  ctx.emit({ rt: 'model', model: ctx.settings.model, availableModels: [ctx.settings.model] });
  if (deps.plan) {
    const done = settle(await runStage(ctx, 'anchor-plan', anchorPlan));
    if (done) return done;
  }
  warnUnpricedBudget(ctx);
  const loopDone = settle(await runStage(ctx, 'tool-loop', toolLoop));
  if (loopDone) return loopDone;
  const synDone = settle(await runStage(ctx, 'synthesize', synthesize));
  if (synDone) return synDone;
  return settle(await runStage(ctx, 'post-turn', postTurn)) ?? { outcome: 'completed' };
}
