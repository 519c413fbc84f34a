import type { EngineAuditOptions, EngineAuditState } from '../audit/audit-state.js';
import { auditEngineEvents } from '../audit/engine-audit.js';
import type { TranslationContext, TranslationStep } from '../translator.js';
import type { StepBuilder } from './step.js';

/**
 * The step's result with the audit rows of the calls that ended in it, for an external engine whose rows are
 * read off its canonical events (engine-audit.ts). `at`: the frame's receivedAt, null in finish().
 */
export function withAudit<S extends { audit: EngineAuditState }>(
  step: StepBuilder<S>,
  at: string | null,
  ctx: TranslationContext,
  options: EngineAuditOptions,
): TranslationStep<S> {
  const audit = auditEngineEvents(step.state.audit, step.events, at, ctx, options);
  step.state.audit = audit.state;
  step.audit.push(...audit.rows);
  return step.result();
}
