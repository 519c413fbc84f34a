import type { ConversationMessage, StageId } from '@agentlane/contract';
import type { TurnOutcome } from '@agentlane/engine-kit';
import { saveCheckpoint } from './checkpoint.js';
import type { TurnContext } from './context.js';
import { errorText } from './parts.js';
import { pluginHook } from './plugins.js';

/** How a stage ended. */
export type StageResult = 'ok' | 'cancelled' | { error: string };

/**
 * Runs one stage: its start and end frames, the plugins' stage hooks, then a checkpoint (also after a failed or
 * cancelled stage, with the calls that never ran closed, so the next prompt carries what this turn said).
 */
export async function runStage(
  ctx: TurnContext,
  id: StageId,
  body: (ctx: TurnContext) => Promise<StageResult>,
): Promise<StageResult> {
  ctx.emit({ rt: 'stage', stage: id, phase: 'start' });
  await pluginHook(ctx, (p) => p.onStageStart?.(id, ctx.pctx), 'onStageStart');
  const result = await body(ctx);
  const status = result === 'ok' ? 'ok' : result === 'cancelled' ? 'cancelled' : 'error';
  ctx.emit({ rt: 'stage', stage: id, phase: 'end', status });
  await pluginHook(ctx, (p) => p.onStageEnd?.(id, ctx.pctx), 'onStageEnd');
  if (status === 'ok') await saveCheckpoint(ctx, id);
  else {
    // The next prompt carries what this turn said, also after a restart: its prompt, the partial text and
    // the steps done (a call that never ran gets an error result, as providers want one per call).
    closeUnrun(ctx.conversation, ctx.turn.turnId, status);
    try {
      await saveCheckpoint(ctx, id);
    } catch (err) {
      ctx.emit({
        rt: 'warning',
        code: 'checkpoint_failed',
        message: `the conversation of the ${status === 'error' ? 'failed' : 'cancelled'} turn was not saved: ${errorText(err)}`,
      });
    }
  }
  return result;
}

/** The turn's outcome when a stage did not end ok; null: go on with the next stage. */
export function settle(r: StageResult): TurnOutcome | null {
  return r === 'ok'
    ? null
    : r === 'cancelled'
      ? { outcome: 'cancelled' }
      : { outcome: 'failed', error: r.error };
}

/** Tool calls of the turn's last step without a result get one saying they never ran. */
function closeUnrun(
  conversation: ConversationMessage[],
  turnId: string,
  status: 'error' | 'cancelled',
): void {
  const answered = new Set<string>();
  const calls: { toolCallId: string; toolName: string }[] = [];
  for (const m of conversation) {
    if (!m.id.startsWith(`${turnId}:`)) continue;
    for (const p of m.parts)
      if (p.type === 'tool-result') answered.add(p.toolCallId);
      else if (p.type === 'tool-call') calls.push({ toolCallId: p.toolCallId, toolName: p.toolName });
  }
  const missing: ConversationMessage['parts'] = calls
    .filter((c) => !answered.has(c.toolCallId))
    .map((c) => ({
      type: 'tool-result',
      ...c,
      output: `not run: the turn ${status === 'error' ? 'failed' : 'was cancelled'} first`,
      isError: true,
    }));
  if (missing.length === 0) return;
  const last = conversation.at(-1);
  if (last?.role === 'tool')
    conversation[conversation.length - 1] = { ...last, parts: [...last.parts, ...missing] };
  else conversation.push({ id: `${turnId}:unrun`, role: 'tool', parts: missing });
}
