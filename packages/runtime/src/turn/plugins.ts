import type { StageId } from '@agentlane/contract';
import type { HarnessPlugin } from '../plugin.js';
import type { TurnContext } from './context.js';

/** Runs a hook of every plugin; a plugin that throws is a harness.warning, never the turn's failure. */
export async function pluginHook(
  ctx: TurnContext,
  run: (p: HarnessPlugin) => unknown,
  label: string,
): Promise<void> {
  for (const p of ctx.deps.plugins) {
    try {
      await run(p);
    } catch (err) {
      ctx.emit({
        rt: 'warning',
        code: 'plugin_failed',
        message: `plugin ${p.name} failed in ${label}: ${(err as Error).message}`,
      });
    }
  }
}

/** The system prompt of a stage's model call: the base, then what the plugins add (beforeModelCall). */
export async function systemFor(ctx: TurnContext, stage: StageId, base: string): Promise<string> {
  const extras: string[] = [];
  await pluginHook(
    ctx,
    async (p) => {
      const s = await p.beforeModelCall?.({ ...ctx.pctx, stage });
      if (s) extras.push(s);
    },
    'beforeModelCall',
  );
  return [base, ...extras].join('\n\n');
}
