import { idEntries, idHas, idKeys, idSet } from '@agentlane/engine-kit';
import { endReasoning, endText } from './blocks.js';
import { cutoffRows, emptyTrack } from './cutoff-rows.js';
import { inScope } from './scope.js';
import type { Step } from './state.js';

/**
 * A turn that ends without a tool call's end (failed, cancelled, or settled by crash recovery after its
 * process died mid-tool) ends that call too, so the thread never shows a tool running forever.
 */
export function endOpenTools(step: Step, status: 'failed' | 'cancelled', error: string): void {
  for (const path of idKeys(step.state.children))
    inScope(step, path.split('/'), (sub) => endOpenTools(sub, status, error));
  // Nobody can answer an approval or a question of a turn that is over: they end cancelled, by the system.
  for (const [id, ask] of Object.entries(step.state.openAsks ?? {}))
    if (ask === 'approval')
      step.emit(`approval.resolved:${id}`, {
        kind: 'approval.resolved',
        payload: { approvalId: id, outcome: 'cancelled', answeredBy: 'system' },
      });
    else
      step.emit(`question.resolved:${id}`, {
        kind: 'question.resolved',
        payload: { questionId: id, outcome: 'cancelled', answeredBy: 'system' },
      });
  step.state = { ...step.state, openAsks: {} };
  let ended = step.state.toolsEnded;
  for (const [toolCallId] of idEntries(step.state.tools)) {
    if (idHas(ended, toolCallId)) continue;
    ended = idSet(ended, toolCallId, true);
    step.emit(`tool.completed:${toolCallId}`, {
      kind: 'tool.completed',
      payload: { toolCallId, status, error },
    });
  }
  if (ended) step.state = { ...step.state, toolsEnded: ended };
  // The ledger rule: every call that started gets a row, also one a crash cut off (see cutoff-rows.ts).
  const cut = cutoffRows(
    step.state.ledger ?? emptyTrack('', ''),
    status === 'failed' ? 'error' : 'cancelled',
    error,
    step.receivedAt,
  );
  step.state = { ...step.state, ledger: cut.track };
  step.audit.push(...cut.rows);
}

/** Closes text and reasoning blocks a step left open (a cancelled stream never sends their end), sub-agents' too. */
export function closeOpen(step: Step): void {
  for (const path of idKeys(step.state.children))
    inScope(step, path.split('/'), (sub) => {
      for (const key of Object.keys(sub.state.texts)) endText(sub, key);
      for (const key of Object.keys(sub.state.reasoning)) endReasoning(sub, key);
    });
  for (const key of Object.keys(step.state.texts)) endText(step, key);
  for (const key of Object.keys(step.state.reasoning)) endReasoning(step, key);
}
