import type { JsonObject } from '@agentlane/contract';
import { billedTokens, type Spend } from './spend.js';

/** A per-turn spending limit of the tool loop; each one is off when absent. */
export interface TurnBudget {
  /** Input + output tokens of the turn's model calls, sub-agents included. */
  tokens?: number;
  /** Cost of the turn in the price table's currency; enforced only for a model the table names. */
  cost?: number;
  /** Set on a sub-agent's budget: the limits are what was left of its parent turn's. */
  shared?: boolean;
}

/** The warning codes a limit ends the tool loop with (the translator maps each to a stop reason). */
export type LimitCode = 'step_limit' | 'token_budget' | 'cost_budget';

export interface LimitHit {
  code: LimitCode;
  message: string;
  detail: JsonObject;
}

/** Refuses a budget that is not a positive number (a config error, found when the driver is made). */
export function checkBudget(name: string, value: unknown, integer: boolean): void {
  if (value === undefined) return;
  const ok =
    typeof value === 'number' && Number.isFinite(value) && value > 0 && (!integer || Number.isInteger(value));
  if (!ok)
    throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'} (got ${String(value)})`);
}

/**
 * Whether the turn has used up its budget, checked before each tool-loop model call: a call already under
 * way is never cut off, so the figures may pass the limit by what the last step (or a sub-agent) spent.
 */
export function budgetHit(budget: TurnBudget, spend: Spend, priced: boolean): LimitHit | null {
  const name = (key: string) => (budget.shared ? `what was left of the parent turn's ${key}` : key);
  const tokens = billedTokens(spend);
  if (budget.tokens !== undefined && tokens >= budget.tokens)
    return {
      code: 'token_budget',
      message: `the tool loop stopped: the turn used ${tokens} tokens, its budget is ${budget.tokens} (${name('turnTokenBudget')}); the answer is synthesized from what was done`,
      detail: { limit: budget.tokens, spent: tokens },
    };
  const cost = spend.cost;
  if (budget.cost !== undefined && priced && cost && cost.amount >= budget.cost)
    return {
      code: 'cost_budget',
      message: `the tool loop stopped: the turn cost ${cost.amount} ${cost.currency}, its budget is ${budget.cost} ${cost.currency} (${name('turnCostBudget')}); the answer is synthesized from what was done`,
      detail: { limit: budget.cost, spent: cost.amount, currency: cost.currency },
    };
  return null;
}

/**
 * What a sub-agent started now may spend: what is left of the parent turn's budget (its spending is the
 * parent's too). Nothing left: 0, so the child stops before its first tool step and only synthesizes.
 */
export function remainingBudget(budget: TurnBudget, spend: Spend): TurnBudget {
  const left = (limit: number, used: number) => Math.max(0, limit - used);
  return {
    shared: true,
    ...(budget.tokens !== undefined ? { tokens: left(budget.tokens, billedTokens(spend)) } : {}),
    ...(budget.cost !== undefined ? { cost: left(budget.cost, spend.cost?.amount ?? 0) } : {}),
  };
}
