import type { PlanEntry } from '@agentlane/contract';

/** "1. Do x" / "- Do y" lines → plan entries; the first one in progress. */
export function parsePlan(text: string): PlanEntry[] {
  const lines = text
    .split('\n')
    .map((l) => l.replace(/^\s*(?:\d+[.)]|[-*])\s*/, '').trim())
    .filter((l) => l.length > 0)
    .slice(0, 20);
  return lines.map((content, i) => ({
    id: `p${i + 1}`,
    content,
    status: i === 0 ? 'in_progress' : 'pending',
  }));
}

/** After a tool step: the entry in progress is done and the next one starts. */
export function advancePlan(plan: PlanEntry[]): PlanEntry[] {
  const current = plan.findIndex((e) => e.status === 'in_progress');
  if (current < 0 || current === plan.length - 1) return plan;
  return plan.map((e, i) =>
    i === current ? { ...e, status: 'completed' } : i === current + 1 ? { ...e, status: 'in_progress' } : e,
  );
}

/** The tool loop's system prompt: the base and the turn's plan. */
export function planSystem(base: string, plan: PlanEntry[]): string {
  if (plan.length === 0) return base;
  return `${base}\n\nThe plan for this turn:\n${plan.map((e, i) => `${i + 1}. ${e.content}`).join('\n')}`;
}
